"""Synthesis with Yosys to a Liberty library: area, cell count, gate-level netlist."""
import re
import time
from pathlib import Path

from . import tools
from .report import Diagnostic, StageResult, parse_diagnostics
from .pdk import CELLS
from .sandbox import Limits, run
from .sources import as_texts, write_all

SCRIPT = """read_verilog -sv {files}
synth -top {top} -flatten
techmap -map latch_map.v
dfflibmap -liberty {lib}
abc -liberty {lib}
setundef -zero
splitnets -ports
opt_clean -purge
tee -q -o logic.txt stat
hilomap -singleton -hicell {tie_hi} -locell {tie_lo}
insbuf -buf {buf}
opt_clean -purge
tee -o stat.txt stat -liberty {lib}
write_verilog -noattr -noexpr -nohex -nodec netlist.v
"""
LATCH_MAP = """module \\$_DLATCH_P_ (input E, input D, output Q); {0} _TECHMAP_REPLACE_ (.{1}(D), .{2}(E), .{3}(Q)); endmodule
module \\$_DLATCH_N_ (input E, input D, output Q); {4} _TECHMAP_REPLACE_ (.{5}(D), .{6}(E), .{7}(Q)); endmodule
"""


def synthesize(sources, top: str, lib: Path, workdir: Path, limits: Limits | None = None,
               cells: dict | None = None) -> StageResult:
    """Synthesize into `workdir` (netlist.v stays there for timing). Fails on 0 cells or unmapped cells."""
    lim = limits or Limits(wall_s=120, cpu_s=240, mem_mb=6144)
    t0 = time.monotonic()
    wd = Path(workdir)
    files = write_all(as_texts(sources), wd)
    cells = cells or CELLS["nangate45"]
    (wd / "latch_map.v").write_text(LATCH_MAP.format(*cells["latch_p"], *cells["latch_n"]))
    (wd / "synth.ys").write_text(SCRIPT.format(files=" ".join(f.name for f in files), top=top, lib=lib,
                                               tie_hi=cells["tie_hi"], tie_lo=cells["tie_lo"], buf=cells["buf"]))
    r = run([tools.which("yosys"), "-q", "-l", "yosys.log", "-s", "synth.ys"], wd, lim)
    log = (wd / "yosys.log").read_text(errors="replace") if (wd / "yosys.log").exists() else r.out
    ver = tools.version("yosys")

    def done(status, diags, data=None):
        return StageResult("synth", status, time.monotonic() - t0, "yosys", ver, diags, data or {}, log[-3000:])
    if r.timed_out or r.limit == "cpu":
        return done("timeout", [Diagnostic(f"synthesis stopped after {lim.wall_s:g} s wall / {lim.cpu_s} s CPU")])
    if r.limit:
        return done("error", [Diagnostic(f"synthesis stopped by the {r.limit} limit ({lim.mem_mb} MB memory)")])
    if r.rc != 0:
        diags = parse_diagnostics(log + "\n" + r.out) or [Diagnostic((r.out or log).strip()[-300:] or "yosys failed")]
        return done("fail", diags)
    stat = (wd / "stat.txt").read_text(errors="replace")
    m = re.search(r"Chip area for (?:top )?module '\\?[^']*':\s*([\d.eE+-]+)", stat)
    ncell_m = re.search(r"Number of cells:\s*(\d+)", stat)
    ncells = int(ncell_m.group(1)) if ncell_m else 0
    area = float(m.group(1)) if m else None
    unmapped = sorted(set(re.findall(r"^\s+(\$_?\w+)\s+\d+", stat, re.M)))
    data = {"area_um2": area, "cells": ncells, "netlist": str(wd / "netlist.v"),
            "cell_types": dict((a, int(b)) for a, b in re.findall(r"^\s+([A-Za-z_]\w*)\s+(\d+)\s*$", stat, re.M))}
    if unmapped:
        return done("fail", [Diagnostic(f"cells not mapped to the library: {', '.join(unmapped)} "
                                        "(latches or memories the flow cannot map)")], data)
    logic = re.search(r"Number of cells:\s*(\d+)", (wd / "logic.txt").read_text(errors="replace"))
    data["logic_cells"] = int(logic.group(1)) if logic else ncells   # before tie cells and buffers for assigns
    if data["logic_cells"] == 0 or not area:
        return done("fail", [Diagnostic("synthesis produced an empty netlist (0 cells): outputs are constant "
                                        "or undriven")], data)
    return done("pass", [], data)
