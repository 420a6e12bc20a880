"""Simulate candidate RTL with a self-checking testbench: Icarus 11 first, Verilator 5.48 when Icarus
cannot compile the testbench. The verdict comes from a verdict rule (eda.verdict): a preset (rtllm,
verilog-eval, cocotb) or pass/fail/mismatch regexes; detected from the testbench when not given.
A Python testbench runs through cocotb (eda.cocotb_sim)."""
import secrets
import time
from pathlib import Path

from .hdl import find_top
from .report import Diagnostic, StageResult, parse_diagnostics
from .sandbox import Limits, Sandbox, run
from .sources import HDL_SUFFIXES, as_texts, write_all
from .tools import get_simulator
from .verdict import RTLLM, detect_rule, get_rule, is_cocotb_tb, seal_testbench, unseal_output

# the RTLLM rule, kept under its old names
PASS_RE = RTLLM.pass_re
FAIL_RES = RTLLM.fail_res


def verdict(output: str, rule=None) -> tuple[str, str]:
    """(status, reason) from a testbench's printout under `rule` (default: RTLLM's)."""
    status, reason, _ = (get_rule(rule) or RTLLM).judge(output)
    return status, reason


def simulate(sources, tb, workdir: Path | None = None, tb_top: str | None = None, limits: Limits | None = None,
             simulators=("icarus", "verilator"), fallback_on_fail: bool = False, verdict_rule=None,
             dut_top: str | None = None, sim_flags: dict | None = None) -> StageResult:
    """Compile candidate `sources` with testbench files `tb` (non-HDL entries are data files the testbench
    reads) and run. `limits.wall_s` bounds the run itself; compile gets its own budget.
    The next simulator is tried when one cannot compile; with `fallback_on_fail` also when its run fails
    (used to calibrate a testbench on its reference: some RTLLM testbenches race under Icarus).
    `verdict_rule`: a preset name, a mapping or an eda.verdict.VerdictRule (None: detect from `tb`);
    `dut_top`: the design's top (the toplevel of a cocotb testbench); `sim_flags`: extra compile flags
    per simulator name, e.g. {"icarus": ["-Wall"]}."""
    lim = limits or Limits(wall_s=30, cpu_s=60, mem_mb=4096)
    t0 = time.monotonic()
    tb_texts = as_texts(tb)
    sources = _apart(as_texts(sources), tb_texts)
    rule = get_rule(verdict_rule) or detect_rule(tb_texts)
    if rule.kind == "cocotb" or is_cocotb_tb(tb_texts):
        from .cocotb_sim import simulate_cocotb
        src_texts = sources
        top = dut_top or tb_top or find_top({n: t for n, t in src_texts.items()})[0]
        with Sandbox(prefix="rtla-cocotb-") as sb:
            return simulate_cocotb(src_texts, tb_texts, top, Path(workdir) if workdir else sb.path, lim,
                                   simulators, rule=rule)
    top = tb_top or find_top(tb_texts)[0]
    tried, logs = [], []
    nonce = secrets.token_hex(8)             # this run's seal on the testbench's own verdict lines
    sealed_tb, sealed = seal_testbench(tb_texts, rule, nonce)
    # The sealed testbench and its compiled form live in a folder of their own, never in the design's: the
    # design runs in `wd` (its sources and the testbench's data files) and sees only the compiled image,
    # read-only at a random path, so reading the seal takes more than the text screen letting a file
    # access through.
    with Sandbox(prefix="rtla-sim-") as sb, Sandbox(prefix="rtla-tb-") as tb_box:
        wd, tbd = Path(workdir) if workdir else sb.path, tb_box.path
        hdl_tb = {n: t for n, t in sealed_tb.items() if Path(n).suffix in HDL_SUFFIXES}
        write_all({n: t for n, t in sealed_tb.items() if n not in hdl_tb}, wd)
        files = write_all(sources, wd) + write_all(hdl_tb, tbd)
        wd.chmod(0o755)           # the compiler (uid 65534, in the testbench's folder) reads the design here
        for sim in simulators:
            tool = get_simulator(sim)
            flags = [f"-I{wd}", *(sim_flags or {}).get(sim, ())]     # the design's own headers
            built, log = tool.build(files, top, tbd, lim, flags=flags, ro=[wd])
            tried.append(sim)
            logs.append(log)
            if built is None:
                continue  # cannot compile with this simulator: try the next
            r = run(built, wd, lim, ro=[built[-1]])
            out = unseal_output(r.out, rule, nonce) if sealed else r.out
            data = {"simulator": sim, "tried": tried, "tb_top": top, "run_s": round(r.seconds, 4),
                    "verdict_rule": rule.name, "sealed_markers": sealed}
            if r.timed_out or r.limit in ("cpu", "wall"):
                return StageResult("sim", "timeout", time.monotonic() - t0, sim, tool.version(),
                                   [Diagnostic(f"simulation stopped after {lim.wall_s:g} s wall / {lim.cpu_s} s CPU "
                                               "(hang, endless loop or no $finish)")], data, out[-2000:])
            if r.limit:
                return StageResult("sim", "error", time.monotonic() - t0, sim, tool.version(),
                                   [Diagnostic(f"simulation stopped by the {r.limit} limit")], data, out[-2000:])
            status, reason, facts = rule.judge(out)
            data.update(facts, reason=reason)
            diags = [] if status == "pass" else [Diagnostic(reason)] + [
                Diagnostic(ln, severity="info") for ln in rule.diagnostics(out)]
            if status != "pass" and fallback_on_fail and sim != simulators[-1]:
                logs.append(out)
                continue
            return StageResult("sim", status, time.monotonic() - t0, sim, tool.version(), diags, data,
                               out[-4000:])
    log = "\n".join(logs)
    diags = parse_diagnostics(log) or [Diagnostic("no simulator could compile the design with its testbench")]
    return StageResult("sim", "fail", time.monotonic() - t0, "+".join(tried), "", diags,
                       {"simulator": None, "tried": tried, "tb_top": top, "compile_error": True,
                        "verdict_rule": rule.name}, log[-4000:])


def _apart(sources: dict, tb_texts: dict) -> dict:
    """Candidate files renamed where a testbench file has the same name (VerilogEval's reference stands
    as the candidate and is also the testbench's golden model): both must reach the compiler."""
    taken = {Path(n).name for n in tb_texts}
    out = {}
    for n, t in sources.items():
        name = Path(n).name
        while name in taken:
            name = "cand_" + name
        taken.add(name)
        out[name] = t
    return out
