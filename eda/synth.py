"""Synthesis with Yosys to a Liberty library: area, cell count, gate-level netlist."""
import re
import time
from pathlib import Path

from .pdk import CELLS
from .report import Diagnostic, StageResult, parse_diagnostics
from .sandbox import Limits, run
from .scripts import render
from .sources import as_texts, write_all
from .tools import YOSYS


def synthesize(sources, top: str, lib: Path, workdir: Path, limits: Limits | None = None,
               cells: dict | None = None) -> StageResult:
    """Synthesize into `workdir` (netlist.v stays there for timing). Fails on 0 cells or unmapped cells."""
    lim = limits or Limits(wall_s=120, cpu_s=240, mem_mb=6144)
    t0 = time.monotonic()
    wd = Path(workdir)
    files = write_all(as_texts(sources), wd)
    cells = cells or CELLS["nangate45"]
    latch = dict(zip(("p_cell", "p_d", "p_en", "p_q"), cells["latch_p"]))
    latch.update(zip(("n_cell", "n_d", "n_en", "n_q"), cells["latch_n"]))
    (wd / "latch_map.v").write_text(render("latch_map.v", **latch))
    (wd / "synth.ys").write_text(render("synth.ys", files=" ".join(f.name for f in files), top=top, lib=lib,
                                        tie_hi=cells["tie_hi"], tie_lo=cells["tie_lo"], buf=cells["buf"]))
    r = run(YOSYS.script_cmd("synth.ys", log="yosys.log"), wd, lim, ro=[lib])   # Liberty: read-only in the sandbox
    log = (wd / "yosys.log").read_text(errors="replace") if (wd / "yosys.log").exists() else r.out
    ver = YOSYS.version()

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
