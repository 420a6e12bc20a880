"""Simulate candidate RTL with a self-checking testbench: Icarus 11 first, Verilator 5.48 when Icarus
cannot compile the testbench. The verdict comes from the testbench's own markers."""
import re
import time
from pathlib import Path

from . import tools
from .report import Diagnostic, StageResult, parse_diagnostics
from .sandbox import Limits, Sandbox, module_names, run, strip_comments
from .sources import as_texts, write_all

PASS_RE = re.compile(r"your\s+design\s+passed", re.I)
FAIL_RES = [re.compile(p, re.I | re.M) for p in (
    r"test\s+completed\s+with\s+0*[1-9]\d*\s*(/\s*\d+\s*)?failures?",
    r"^\s*=*\s*(error|failed)\s*=*\s*$",
    r"\bfailed\b",
    r"^\s*error\b",
    r"\d+\s+errors?\b(?<!\b0 errors)",
)]


def verdict(output: str) -> tuple[str, str]:
    """(status, reason) from a testbench's printout."""
    fails = [m.group(0).strip() for rx in FAIL_RES for m in [rx.search(output)] if m]
    if fails:
        return "fail", f"testbench reported: {fails[0][:120]}"
    if PASS_RE.search(output):
        return "pass", "testbench printed its pass marker"
    return "fail", "testbench finished without printing its pass marker"


def find_tb_top(tb_texts: dict) -> str | None:
    """The testbench module that no other testbench module instantiates."""
    names = []
    for t in tb_texts.values():
        if isinstance(t, str):
            names += module_names(t)
    code = "\n".join(strip_comments(t) for t in tb_texts.values() if isinstance(t, str))
    for n in names:
        if not re.search(rf"^\s*{re.escape(n)}\s*(#\s*\(|\w+\s*\()", code, re.M):
            return n
    return names[0] if names else None


def simulate(sources, tb, workdir: Path | None = None, tb_top: str | None = None, limits: Limits | None = None,
             simulators=("icarus", "verilator"), fallback_on_fail: bool = False) -> StageResult:
    """Compile candidate `sources` with testbench files `tb` (non-HDL entries are data files the testbench
    reads) and run. `limits.wall_s` bounds the run itself; compile gets its own budget.
    The next simulator is tried when one cannot compile; with `fallback_on_fail` also when its run fails
    (used to calibrate a testbench on its reference: some RTLLM testbenches race under Icarus)."""
    lim = limits or Limits(wall_s=30, cpu_s=60, mem_mb=4096)
    t0 = time.monotonic()
    tb_texts = as_texts(tb)
    top = tb_top or find_tb_top(tb_texts)
    tried, logs = [], []
    with Sandbox(prefix="rtla-sim-") as sb:
        wd = Path(workdir) if workdir else sb.path
        files = write_all(as_texts(sources), wd) + write_all(tb_texts, wd)
        for sim in simulators:
            built, log = (_build_icarus if sim == "icarus" else _build_verilator)(files, top, wd, lim)
            tried.append(sim)
            logs.append(log)
            if built is None:
                continue  # cannot compile with this simulator: try the next
            r = run(built, wd, lim)
            out = r.out
            data = {"simulator": sim, "tried": tried, "tb_top": top, "run_s": round(r.seconds, 4)}
            if r.timed_out or r.limit in ("cpu", "wall"):
                return StageResult("sim", "timeout", time.monotonic() - t0, sim, tools.version(_tool(sim)),
                                   [Diagnostic(f"simulation stopped after {lim.wall_s:g} s wall / {lim.cpu_s} s CPU "
                                               "(hang, endless loop or no $finish)")], data, out[-2000:])
            if r.limit:
                return StageResult("sim", "error", time.monotonic() - t0, sim, tools.version(_tool(sim)),
                                   [Diagnostic(f"simulation stopped by the {r.limit} limit")], data, out[-2000:])
            status, reason = verdict(out)
            diags = [] if status == "pass" else [Diagnostic(reason)] + _mismatch_lines(out)
            if status != "pass" and fallback_on_fail and sim != simulators[-1]:
                logs.append(out)
                continue
            return StageResult("sim", status, time.monotonic() - t0, sim, tools.version(_tool(sim)), diags, data,
                               out[-4000:])
    log = "\n".join(logs)
    diags = parse_diagnostics(log) or [Diagnostic("no simulator could compile the design with its testbench")]
    return StageResult("sim", "fail", time.monotonic() - t0, "+".join(tried), "", diags,
                       {"simulator": None, "tried": tried, "tb_top": top, "compile_error": True}, log[-4000:])


def _tool(sim):
    return "iverilog" if sim == "icarus" else "verilator"


def _mismatch_lines(out: str, n=5) -> list:
    lines = [l.strip() for l in out.splitlines() if re.search(r"fail|error|expected|mismatch", l, re.I)]
    return [Diagnostic(l[:200], severity="info") for l in lines[:n]]


def _build_icarus(files, top, wd, lim):
    cmd = [tools.which("iverilog"), "-g2012", "-o", "sim.vvp"] + (["-s", top] if top else []) + files
    r = run(cmd, wd, Limits(wall_s=max(lim.wall_s, 30), cpu_s=60, mem_mb=lim.mem_mb))
    if not r.ok:
        return None, r.out
    return [tools.which("vvp"), "-n", "sim.vvp"], r.out


def _build_verilator(files, top, wd, lim):
    cmd = [tools.which("verilator"), "--binary", "--timing", "-j", "2", "-CFLAGS", "-fcoroutines",
           "-Wno-fatal", "-Wno-lint", "-Wno-style", "-Wno-MULTITOP", "--timescale", "1ns/1ps",
           "--Mdir", "vobj", "-o", "Vtb"] + (["--top-module", top] if top else []) + files
    r = run(cmd, wd, Limits(wall_s=180, cpu_s=300, mem_mb=max(lim.mem_mb, 4096), out_mb=512))
    if not r.ok:
        return None, r.out
    return [str(wd / "vobj" / "Vtb")], r.out
