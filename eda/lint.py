"""Syntax/lint: Icarus (-g2012) then Verilator --lint-only. Errors fail; warnings are kept."""
import re
import time
from pathlib import Path

from .report import Diagnostic, StageResult, parse_diagnostics
from .sandbox import Limits, Sandbox, run
from .sources import as_texts, write_all
from .tools import ICARUS, VERILATOR, YOSYS


def lint(sources, top: str | None = None, workdir: Path | None = None, limits: Limits | None = None,
         verilator: bool = True) -> StageResult:
    lim = limits or Limits(wall_s=30, cpu_s=30, mem_mb=2048)
    t0 = time.monotonic()
    with Sandbox(prefix="rtla-lint-") as sb:
        wd = Path(workdir) if workdir else sb.path
        files = write_all(as_texts(sources), wd)
        r = run(ICARUS.compile_cmd(files, "lint.vvp", top), wd, lim)
        out_log = r.out
        status, tool = "pass", "iverilog"
        loop_diags = []
        icarus_unsupported = False
        if r.timed_out or r.limit:
            status = "timeout" if r.timed_out or r.limit == "cpu" else "error"
        elif r.rc != 0:
            status = "fail"
            # Icarus 11 says "sorry: ... not yet supported" for SystemVerilog it lacks (casts, ...): a gap in
            # the tool, not an error in the design; Verilator decides, as the sim stage falls back to it
            icarus_unsupported = verilator and only_unsupported(r.out)
            if icarus_unsupported:
                status = "pass"
        if status == "pass" and verilator:
            rv = run(VERILATOR.lint_cmd(files, top), wd, lim)
            out_log += "\n" + rv.out
            tool = "iverilog+verilator"
            if rv.timed_out or rv.limit:
                status = "timeout" if rv.timed_out or rv.limit == "cpu" else "error"
            elif rv.rc != 0:
                status = "fail"
            elif "UNOPTFLAT" in rv.out:
                loops = _logic_loops(files, top, wd, lim)
                if loops:
                    status, loop_diags = "fail", loops
            if icarus_unsupported:
                tool = "verilator (Icarus 11: unsupported SystemVerilog)"
        diags = loop_diags or (parse_diagnostics(out_log) if status != "pass" else [])
        if status == "fail" and tool == "iverilog":
            _quote(diags, wd)
        if status != "pass" and not diags:
            reason = f"stopped by the {r.limit or 'wall'} limit" if status in ("timeout", "error") else out_log.strip()[-300:]
            diags = [Diagnostic(reason or "lint failed")]
    return StageResult("lint", status, time.monotonic() - t0, tool,
                       ICARUS.version() + (" / " + VERILATOR.version() if verilator else ""),
                       diags, {"warnings": len(parse_diagnostics(out_log, only_errors=False)) - len(diags)},
                       out_log[-2000:])


def _quote(diags, wd: Path):
    """Icarus 11 says only "syntax error" where it cannot read a construct (SystemVerilog it lacks): the line it
    stopped at says which (`rtl-agent eval` lowers a design slang reads: eda.sv_lower)."""
    for d in diags:
        if d.file and d.line and d.message.lower().startswith("syntax error") and (wd / d.file).is_file():
            lines = (wd / d.file).read_text(errors="replace").splitlines()
            if 0 < d.line <= len(lines) and lines[d.line - 1].strip():
                d.message += f" at `{lines[d.line - 1].strip()[:80]}`"


def only_unsupported(out: str) -> bool:
    """Icarus failed only with "sorry" (not supported yet) messages, plus its error count lines."""
    lines = [ln.strip() for ln in out.splitlines() if ln.strip()]
    sorry = [ln for ln in lines if "sorry:" in ln]
    other = [ln for ln in lines if "sorry:" not in ln and "error" in ln.lower()
             and not ln.endswith(("error(s) during elaboration.", "error(s) during elaboration"))
             and not ln.startswith(("Exiting due to",))]
    return bool(sorry) and not other


def _logic_loops(files, top, wd, lim) -> list:
    """Verilator's UNOPTFLAT also fires for signals whose bits only depend on each other in order (a carry
    vector); Yosys `check` on the flattened design decides, bit by bit, whether a real loop exists."""
    cmds = "; ".join([*(f"read_verilog -sv {f.name}" for f in files), f"hierarchy -top {top}" if top else
                      "hierarchy -auto-top", "proc -noopt", "flatten", "tee -q -o loops.txt check"])
    r = run(YOSYS.commands_cmd(cmds), wd, lim)
    out = (wd / "loops.txt").read_text(errors="replace") if (wd / "loops.txt").exists() else ""
    if not r.ok or "found logic loop" not in out:
        return []
    srcs = sorted(set(re.findall(r"source: ([^\s:]+):(\d+)", out.split("found logic loop", 1)[1])))
    where = ", ".join(f"{f}:{ln}" for f, ln in srcs[:4])
    f, ln = srcs[0] if srcs else (None, None)
    return [Diagnostic(f"combinational loop (a signal depends on itself with no register between): {where}",
                       f, int(ln) if ln else None)]
