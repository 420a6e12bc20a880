"""Synthesis with Yosys to a Liberty library: area, cell count, gate-level netlist."""
import json
import re
import time
from pathlib import Path

from .pdk import DEFAULT_PDK, PDKS
from .report import Diagnostic, StageResult, parse_diagnostics
from .sandbox import Limits, run
from .scripts import render
from .sources import as_texts, write_all
from .tools import YOSYS

# memories addressed by this many bits or more (1024+ words) are not built from flip-flops (no memory macro model)
MEM_ABITS = 10


def synthesize(sources, top: str, lib: Path, workdir: Path, limits: Limits | None = None,
               cells: dict | None = None, recipe: dict | None = None) -> StageResult:
    """Synthesize into `workdir` (netlist.v stays there for timing). Fails on 0 cells or unmapped cells.
    `recipe`: another script than the default (eda/synth_strong.py): flags added to `synth` and to `abc`,
    and files it needs in `workdir` (an ABC script), name -> text."""
    lim = limits or Limits(wall_s=120, cpu_s=240, mem_mb=6144)
    t0 = time.monotonic()
    wd = Path(workdir)
    files = write_all(as_texts(sources), wd)
    cells = cells or PDKS[DEFAULT_PDK].cells
    latch = dict(zip(("p_cell", "p_d", "p_en", "p_q"), cells["latch_p"]))
    latch.update(zip(("n_cell", "n_d", "n_en", "n_q"), cells["latch_n"]))
    (wd / "latch_map.v").write_text(render("latch_map.v", **latch))
    recipe = recipe or {}
    for name, text in recipe.get("files", {}).items():
        (wd / name).write_text(text)
    fields = dict(files=" ".join(f.name for f in files), top=top, lib=lib, tie_hi=cells["tie_hi"],
                  tie_lo=cells["tie_lo"], buf=cells["buf"], mem_abits=MEM_ABITS,
                  synth_flags=recipe.get("synth_flags", ""), abc_flags=recipe.get("abc_flags", ""))
    r, log = _yosys(wd, fields, lim, lib, big_memory=False)
    ver = YOSYS.version()
    notes, mem = [], {}
    if r.rc != 0 and "Assertion failed: selection is not empty" in log + r.out:
        # a memory too large for flip-flops: again, with it a black box; the rest is measured, the report says so
        mem = _stat(wd / "mem.json", top)
        r, log = _yosys(wd, fields, lim, lib, big_memory=True)
        bits, n = mem.get("num_memory_bits", "?"), mem.get("num_memories", "?")
        notes = [Diagnostic(f"memory: {bits} bits in {n} memor{'y' if n == 1 else 'ies'}, not in PPA: a memory of "
                            f"{1 << MEM_ABITS} words or more is a black box (no memory macro model is declared); area, "
                            "delay and power are the rest of the design's, paths into and out of it are not timed",
                            severity="warning")]

    def done(status, diags, data=None):
        data = {**(data or {}), **({"memory_bits_not_in_ppa": mem.get("num_memory_bits")} if mem else {})}
        return StageResult("synth", status, time.monotonic() - t0, "yosys", ver, diags + notes, data, log[-3000:])
    if r.timed_out or r.limit == "cpu":
        return done("timeout", [Diagnostic(f"synthesis stopped after {lim.wall_s:g} s wall / {lim.cpu_s} s CPU")])
    if r.limit:
        return done("error", [Diagnostic(f"synthesis stopped by the {r.limit} limit ({lim.mem_mb} MB memory)")])
    if r.rc != 0:
        diags = parse_diagnostics(log + "\n" + r.out) or [Diagnostic((r.out or log).strip()[-300:] or "yosys failed")]
        return done("fail", diags)
    stat = _stat(wd / "stat.json", top)
    if not stat:
        return done("fail", [Diagnostic("yosys wrote no statistics for the top module (stat.json)")])
    area = float(stat["area"]) if stat.get("area") is not None else None
    by_type = stat.get("num_cells_by_type", {})
    unmapped = sorted(t for t in by_type if t.startswith("$"))
    data = {"area_um2": area, "cells": int(stat.get("num_cells", 0)), "netlist": str(wd / "netlist.v"),
            "cell_types": {t: int(n) for t, n in by_type.items() if not t.startswith("$")}}
    if unmapped:
        return done("fail", [Diagnostic(f"cells not mapped to the library: {', '.join(unmapped)} "
                                        "(latches or memories the flow cannot map)")], data)
    data["logic_cells"] = int(_stat(wd / "logic.json", top).get("num_cells", data["cells"]))  # before ties, buffers
    if data["logic_cells"] == 0 or not area:
        return done("fail", [Diagnostic("synthesis produced an empty netlist (0 cells): outputs are constant "
                                        "or undriven")], data)
    return done("pass", [], data)


def _yosys(wd: Path, fields: dict, lim, lib, big_memory: bool):
    """Run synth.ys; (result, log). big_memory: memories of 2^MEM_ABITS+ words become RTLA_MEM black boxes
    (eda/scripts/mem_blackbox.v), whose parameters are then taken out of the netlist for OpenSTA."""
    if big_memory:
        (wd / "mem_blackbox.v").write_text(render("mem_blackbox.v"))
        mem = dict(mem_lib="read_verilog -lib mem_blackbox.v\n",
                   mem_step=f"flatten\nmemory -nomap\nchtype -set RTLA_MEM t:$mem_v2 r:ABITS>={MEM_ABITS} %i",
                   mem_unset="setparam -unset INIT t:RTLA_MEM\n")
    else:
        mem = dict(mem_lib="", mem_step=f"select -assert-none t:$memrd_v2 t:$memwr_v2 %u r:ABITS>={MEM_ABITS} %i",
                   mem_unset="")
    (wd / "synth.ys").write_text(render("synth.ys", **fields, **mem))
    r = run(YOSYS.script_cmd("synth.ys", log="yosys.log"), wd, lim, ro=[lib])   # Liberty: read-only in the sandbox
    log = (wd / "yosys.log").read_text(errors="replace") if (wd / "yosys.log").exists() else r.out
    net = wd / "netlist.v"
    if big_memory and r.rc == 0 and net.exists():
        # OpenSTA reads no instance parameters; without them it makes RTLA_MEM a black box
        net.write_text(re.sub(r"RTLA_MEM\s*#\((?:[^()]|\([^()]*\))*\)\s*", "RTLA_MEM ", net.read_text()))
    return r, log


def _stat(path: Path, top: str) -> dict:
    """The top module's numbers from `stat -json` (Yosys 0.70: num_cells, num_cells_by_type, area with
    -liberty); {} when the file is missing or unreadable."""
    try:
        d = json.loads(path.read_text(errors="replace"))
    except (OSError, ValueError):
        return {}
    mods = d.get("modules", {})
    return mods.get("\\" + top) or (next(iter(mods.values())) if len(mods) == 1 else d.get("design", {}))
