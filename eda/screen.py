"""The source screen: reasons to refuse a candidate source before any tool sees it.

    screen(text, "dut.v")          # [] accepted, else one reason per finding

Refused: file/OS system tasks ($system, $fopen, $readmemh, $dumpfile, ...), DPI import/export,
C++ that Verilator would paste into its build ($c, `systemc_*, `verilator_config), an `include
outside the candidate's folder, a string imitating a testbench verdict, an empty or oversized
source, a source without a module. A source that defines or uses macros is screened again after
Icarus' preprocessor, run in the sandbox (`eda.sandbox.run`).
"""
import re
from pathlib import Path

from .hdl import STRING_RE, module_names, strip_comments
from .sandbox import Limits, Sandbox, run
from .tools import ICARUS

FORBIDDEN_TASKS = ("system", "fopen", "fclose", "fdisplay", "fwrite", "fstrobe", "fmonitor", "fscanf",
                   "fgets", "fgetc", "fread", "fflush", "fseek", "rewind", "ungetc", "readmemh", "readmemb",
                   "writememh", "writememb", "dumpfile", "dumpvars", "dumpall", "dumpon", "dumpoff",
                   "dumpports", "dumplimit", "dumpflush", "sdf_annotate", "save", "restart", "incsave")
_TASK_RE = re.compile(r"\$(" + "|".join(FORBIDDEN_TASKS) + r")\b")
_DPI_RE = re.compile(r"\b(import|export)\s+\"DPI(-C)?\"")
# Verilator pastes these into the generated C++: arbitrary code execution at simulation time
_CPP_RE = re.compile(r"\$c(?:pure|\d+)?\s*\(|`systemc_\w+|`verilator_config")
_INCLUDE_RE = re.compile(r"`include\s+[\"<]([^\">]*)[\">]")
_PASS_RE = re.compile(r"pass(ed)?\b|failures?\b", re.I)
_PACKAGE_RE = re.compile(r"^\s*package\s+\w+\s*;", re.M)


def screen(text: str, name: str = "candidate.v", max_bytes: int = 2_000_000,
           allow_verdict_strings: bool = False, expand: bool = True) -> list[str]:
    """Reasons to refuse a candidate source before any tool runs (empty list: accepted).

    `allow_verdict_strings`: a stimulus (eda/stimulus.py) may print "passed"/"failed";
    only candidate RTL is refused for imitating a testbench verdict. `expand`: a source that defines or
    uses macros is also screened after Icarus' preprocessor (in the sandbox), so a system task, a DPI
    import or $c built by token pasting, a macro argument or a redefinition is seen."""
    if len(text.encode()) > max_bytes:
        return [f"{name}: {len(text.encode())} bytes is over the {max_bytes}-byte limit"]
    if not text.strip():
        return [f"{name}: empty source"]
    code = strip_comments(text)
    reasons = []

    def line_of(pos):
        return code.count("\n", 0, pos) + 1
    for m in _TASK_RE.finditer(code):
        reasons.append(f"{name}:{line_of(m.start())}: system task ${m.group(1)} is not allowed in a candidate (file/OS access)")
    for m in _DPI_RE.finditer(code):
        reasons.append(f"{name}:{line_of(m.start())}: DPI import/export is not allowed in a candidate")
    for m in _CPP_RE.finditer(code):
        reasons.append(f"{name}:{line_of(m.start())}: embedded C++ ({m.group(0).rstrip('(').strip()}) is not allowed")
    for m in _INCLUDE_RE.finditer(code):
        inc = m.group(1)
        if inc.startswith("/") or ".." in Path(inc).parts or inc.startswith("~"):
            reasons.append(f"{name}:{line_of(m.start())}: `include \"{inc}\" points outside the candidate's folder")
    for m in ([] if allow_verdict_strings else STRING_RE.finditer(code)):
        if _PASS_RE.search(m.group(0)):
            reasons.append(f"{name}:{line_of(m.start())}: string {m.group(0)[:60]} imitates a testbench verdict")
    # a header, or a file of `define lines (-D: eda.design_inputs), is part of a design without a module
    directives_only = all(ln.lstrip().startswith("`") for ln in code.splitlines() if ln.strip())
    units = module_names(text) or _PACKAGE_RE.search(code)      # a package is part of a design too
    if not units and not reasons and not str(name).endswith((".vh", ".svh")) and not directives_only:
        reasons.append(f"{name}: no module declaration found")
    if expand and not reasons and _MACRO_RE.search(code):
        reasons += _expanded_reasons(text, name)
    return reasons


_DIRECTIVES = ("timescale", "default_nettype", "resetall", "celldefine", "endcelldefine", "include", "line",
               "pragma", "begin_keywords", "end_keywords", "unconnected_drive", "nounconnected_drive", "ifdef",
               "ifndef", "else", "elsif", "endif", "undef", "undefineall")
_MACRO_RE = re.compile(r"``|`define\b|`(?!(?:" + "|".join(_DIRECTIVES) + r")\b)[A-Za-z_]")


def _expanded_reasons(text: str, name: str) -> list[str]:
    """The screen's rules on the source after macro expansion (iverilog -E, sandboxed). A source Icarus
    cannot preprocess alone (e.g. it includes a sibling header) gets no reason here; lint judges it."""
    with Sandbox(prefix="rtla-screen-") as sb:
        sb.write("src.v", text)
        r = run(ICARUS.preprocess_cmd(["src.v"], "pre.v"), sb.path,
                Limits(wall_s=20, cpu_s=10, mem_mb=1024, out_mb=16, disk_mb=64))
        pre = sb.path / "pre.v"
        if not r.ok or not pre.is_file():
            return []
        code = strip_comments(pre.read_text(errors="replace"))
    found = {f"${m.group(1)}" for m in _TASK_RE.finditer(code)}
    found |= {"a DPI import/export" for _ in _DPI_RE.finditer(code)}
    found |= {"embedded C++ ($c / `systemc)" for _ in _CPP_RE.finditer(code)}
    return [f"{name}: {what} is reached through a macro (token pasting, a macro argument or a redefinition); "
            "not allowed in a candidate" for what in sorted(found)]
