"""Simulate candidate RTL with a self-checking testbench: Icarus 11 first, Verilator 5.48 when Icarus
cannot compile the testbench. The verdict comes from the testbench's own markers."""
import re
import time
from pathlib import Path

from .hdl import find_top
from .report import Diagnostic, StageResult, parse_diagnostics
from .sandbox import Limits, Sandbox, run
from .sources import as_texts, write_all
from .tools import get_simulator

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


def simulate(sources, tb, workdir: Path | None = None, tb_top: str | None = None, limits: Limits | None = None,
             simulators=("icarus", "verilator"), fallback_on_fail: bool = False) -> StageResult:
    """Compile candidate `sources` with testbench files `tb` (non-HDL entries are data files the testbench
    reads) and run. `limits.wall_s` bounds the run itself; compile gets its own budget.
    The next simulator is tried when one cannot compile; with `fallback_on_fail` also when its run fails
    (used to calibrate a testbench on its reference: some RTLLM testbenches race under Icarus)."""
    lim = limits or Limits(wall_s=30, cpu_s=60, mem_mb=4096)
    t0 = time.monotonic()
    tb_texts = as_texts(tb)
    top = tb_top or find_top(tb_texts)[0]
    tried, logs = [], []
    with Sandbox(prefix="rtla-sim-") as sb:
        wd = Path(workdir) if workdir else sb.path
        files = write_all(as_texts(sources), wd) + write_all(tb_texts, wd)
        for sim in simulators:
            tool = get_simulator(sim)
            built, log = tool.build(files, top, wd, lim)
            tried.append(sim)
            logs.append(log)
            if built is None:
                continue  # cannot compile with this simulator: try the next
            r = run(built, wd, lim)
            out = r.out
            data = {"simulator": sim, "tried": tried, "tb_top": top, "run_s": round(r.seconds, 4)}
            if r.timed_out or r.limit in ("cpu", "wall"):
                return StageResult("sim", "timeout", time.monotonic() - t0, sim, tool.version(),
                                   [Diagnostic(f"simulation stopped after {lim.wall_s:g} s wall / {lim.cpu_s} s CPU "
                                               "(hang, endless loop or no $finish)")], data, out[-2000:])
            if r.limit:
                return StageResult("sim", "error", time.monotonic() - t0, sim, tool.version(),
                                   [Diagnostic(f"simulation stopped by the {r.limit} limit")], data, out[-2000:])
            status, reason = verdict(out)
            diags = [] if status == "pass" else [Diagnostic(reason)] + _mismatch_lines(out)
            if status != "pass" and fallback_on_fail and sim != simulators[-1]:
                logs.append(out)
                continue
            return StageResult("sim", status, time.monotonic() - t0, sim, tool.version(), diags, data,
                               out[-4000:])
    log = "\n".join(logs)
    diags = parse_diagnostics(log) or [Diagnostic("no simulator could compile the design with its testbench")]
    return StageResult("sim", "fail", time.monotonic() - t0, "+".join(tried), "", diags,
                       {"simulator": None, "tried": tried, "tb_top": top, "compile_error": True}, log[-4000:])


def _mismatch_lines(out: str, n=5) -> list:
    lines = [l.strip() for l in out.splitlines() if re.search(r"fail|error|expected|mismatch", l, re.I)]
    return [Diagnostic(l[:200], severity="info") for l in lines[:n]]
