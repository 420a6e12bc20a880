"""SystemVerilog as teams write it, for the tools of the flow that cannot read it (issue #59 item 3).

Icarus 11 rejects most of it (`parameter int unsigned`, `parameter type`, package functions, packed arrays of a
type parameter, ...) and Yosys' own reader some (`parameter type`, `x++`); Verilator and slang read it all. A
design that Icarus or Yosys cannot read is lowered: Yosys' slang frontend (`read_slang`, in the pyosys wheel)
elaborates it with its packages, `include`s and defines, and Yosys writes it back as one flat Verilog-2005
module that every tool of the flow reads, with the same ports and the same behaviour cycle for cycle.
Parameters are fixed at their values (set the top's with -P), and `SYNTHESIS is defined, as synthesis reads
the design: code for simulation only (assertions, $display) is left out.

    texts = lower_if_needed(texts, top)     # the same dict when Icarus and Yosys read the design as it is

A design both read is returned as it is, and so is one slang finds an error in (lint reports it as before).
A construct a tool cannot read and the lowering cannot either raises LowerError, one line naming the file,
the line and the construct.
"""
import re
from pathlib import Path

from .lint import only_unsupported
from .sandbox import Limits, Sandbox, run
from .sources import HDL_SUFFIXES, write_all
from .tools import ICARUS, YOSYS

_INCLUDE_RE = re.compile(r'^\s*`include\s+"([^"]+)"', re.M)
# a construct the lowering does not implement, against an error in the design (which lint reports)
_UNSUPPORTED_RE = re.compile(r"unsynthesizable|unsupported|not supported|unimplemented", re.I)
_ERROR_RE = re.compile(r"^(?P<file>[^\s:]+):(?P<line>\d+): ERROR: (?P<msg>.*)$", re.M)


class LowerError(ValueError):
    """A construct neither a tool of the flow nor the lowering reads; one line with file, line and construct."""


def lower_if_needed(texts: dict, top: str, limits: Limits | None = None) -> dict:
    """`texts` (name -> text) as they are when Icarus and Yosys read them; else the lowered design, one
    file `<top>.v`. Raises LowerError (see the module)."""
    if not any(isinstance(t, str) and Path(n).suffix in HDL_SUFFIXES for n, t in texts.items()):
        return texts
    lim = limits or Limits(wall_s=120, cpu_s=240, mem_mb=4096)
    with Sandbox(prefix="rtla-svlower-") as sb:
        files = write_all(texts, sb.path)       # as every stage writes them: headers beside the sources
        why = _unreadable(files, top, sb.path, lim)
        if why is None:
            return texts
        _headers_in_folders(texts, sb.path)
        lowered = _lower(files, top, sb.path, lim, why)
    if lowered is None:
        return texts
    names = ", ".join(n for n in texts if Path(n).suffix in HDL_SUFFIXES)
    head = (f"// {top}: lowered from {names} by rtl-agent (eda/sv_lower.py: Yosys read_slang, then write_verilog;\n"
            f"// {why}). Parameters are fixed, `SYNTHESIS defined; line numbers are this file's.\n")
    return {f"{top}.v": head + lowered}


def _headers_in_folders(texts: dict, folder: Path):
    """Each header again where an `include names it with a folder (`include "common_cells/registers.svh"): the
    stages write headers beside the sources, where such an `include does not find them; the lowering does."""
    by_name = {Path(n).name: t for n, t in texts.items()}
    for t in texts.values():
        for inc in _INCLUDE_RE.findall(t) if isinstance(t, str) else ():
            p = Path(inc)
            if len(p.parts) > 1 and not p.is_absolute() and ".." not in p.parts and p.name in by_name:
                (folder / p).parent.mkdir(parents=True, exist_ok=True)
                body = by_name[p.name]
                (folder / p).write_bytes(body if isinstance(body, bytes) else body.encode())


def _unreadable(files, top: str, wd: Path, lim: Limits) -> str | None:
    """Why Icarus (-g2012, elaborating the top) or Yosys (read_verilog -sv) cannot read the design, or None.
    Icarus' "sorry: not supported" alone is no reason: lint passes such a design on Verilator's word."""
    names = [f.name for f in files]         # relative: a message names the file, not the temporary folder
    r = run(ICARUS.compile_cmd(names, "read.vvp", top), wd, lim)
    if not r.ok and not only_unsupported(r.out):
        return f"Icarus 11 cannot read it: {_first_error(r.out)}"
    reads = "; ".join([f"read_verilog -sv {' '.join(names)}", f"hierarchy -top {top}"])
    r = run(YOSYS.commands_cmd(reads), wd, lim)
    if not r.ok:
        return f"Yosys read_verilog cannot read it: {_first_error(r.out)}"
    return None


def _lower(files, top: str, wd: Path, lim: Limits, why: str) -> str | None:
    """The design as Verilog-2005 (Yosys read_slang -> write_verilog); None when slang finds an error in the
    design (lint reports it); LowerError for a construct the lowering does not implement."""
    script = "\n".join([
        f"read_slang --single-unit -I . --top {top} {' '.join(f.name for f in files)}",
        f"hierarchy -top {top}", "proc", "flatten",
        "chformal -remove", "delete t:$print",      # simulation-only cells (none is left under `SYNTHESIS)
        "bwmuxmap", "demuxmap", "opt_clean",         # cells write_verilog could only write as Yosys instances
        "write_verilog -noattr lowered.v"])
    (wd / "lower.ys").write_text(script + "\n")
    r = run(YOSYS.script_cmd("lower.ys"), wd, lim)
    out = wd / "lowered.v"
    if r.ok and out.is_file():
        text = out.read_text(errors="replace")
        cell = re.search(r"^\s*\\(\$\w+)\s", text, re.M)
        if cell:
            raise LowerError(f"{top}: {why}, and the lowering left Yosys cell {cell.group(1)}, which no "
                             "simulator reads")
        return re.sub(r"\A/\*.*?\*/\s*", "", text, flags=re.S)   # Yosys' banner: the header says where it is from
    if r.timed_out or r.limit:
        raise LowerError(f"{top}: {why}, and its SystemVerilog lowering was stopped by the {r.limit or 'wall'} limit")
    src = re.search(r"^Source line (?P<file>[^\s:]+):(?P<line>\d+):\d+:\s*(?P<code>.*)$", r.out, re.M)
    if src and "unimplemented" in r.out:
        kind = re.search(r'"kind":\s*"(\w+)"(?:,\s*"type":\s*"([^"]+)")?', r.out)
        what = f"{kind.group(1)}{' of type ' + kind.group(2) if kind and kind.group(2) else ''}" if kind else "a construct"
        raise LowerError(f"{src['file']}:{src['line']}: {what} (`{src['code'].strip()[:60]}`): {why}, and the "
                         "SystemVerilog lowering (Yosys read_slang) does not implement this construct")
    err = _ERROR_RE.search(r.out)
    if err and _UNSUPPORTED_RE.search(err["msg"]):
        raise LowerError(f"{err['file']}:{err['line']}: {err['msg'].strip()}: {why}, and the SystemVerilog "
                         "lowering (Yosys read_slang) cannot read it either")
    if err:
        return None
    raise LowerError(f"{top}: {why}, and its SystemVerilog lowering failed: {_first_error(r.out)}")


def _first_error(out: str) -> str:
    lines = [ln.strip() for ln in out.splitlines() if re.search(r"error|ERROR", ln)]
    return (lines[0] if lines else out.strip().splitlines()[-1] if out.strip() else "no output")[:200]
