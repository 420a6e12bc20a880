"""OpenROAD place and route of one gate-level netlist, run by eda.tools.openroad inside the sandbox under
OpenROAD's own Python module (`import openroad`: PyPI's wheel, under its private glibc). Reads pnr.json,
writes result.json and routed.def in the work folder; any failed step ends it with {"error": ..., "step": ...}.

It uses each tool's Python API: the wheel's Tcl commands that take the design (initialize_floorplan, ...)
crash (upstream fixed it after the wheel was built), and evalTclString returns a Tcl error as text, so the
few Tcl commands left (SDC, wire RC, parasitics, reports) go through tcl(), which checks each one.
This file imports nothing from the project: it runs in another interpreter.
"""
import json
import re
import sys
import time

import openroad


class Failed(Exception):
    pass


def tcl(design, cmd: str) -> str:
    """Run one Tcl command; its error raises (evalTclString alone would return it as output)."""
    out = design.evalTclString(f"set ::rtla_rc [catch {{{cmd}}} ::rtla_msg]; set ::rtla_rc")
    msg = design.evalTclString("set ::rtla_msg")
    if out.strip() != "0":
        raise Failed(f"{cmd.split()[0]}: {msg.strip()[:400]}")
    return msg


def floorplan(d, tech, p):
    fp = d.getFloorplan()
    site = fp.findSite(p["site"])
    if site is None:
        raise Failed(f"site {p['site']} not in the technology LEF")
    m = d.micronToDBU(p["margin_um"])
    fp.initFloorplan(p["utilization"] * 100, p["aspect_ratio"], m, m, m, m, site)
    fp.makeTracks()
    block = d.getBlock()
    if not block.getRows():
        raise Failed("floorplan made no rows")
    io = d.getIOPlacer()
    io.addHorLayer(tech.findLayer(p["pin_layers"][0]))
    io.addVerLayer(tech.findLayer(p["pin_layers"][1]))
    io.getParameters().setRandSeed(42)
    io.runHungarianMatching()


def place(d, p):
    g = d.getReplace()
    g.setTimingDrivenMode(False)         # needs wire RC before placement: RSZ-0089
    g.setRoutabilityDrivenMode(False)
    g.setTargetDensity(p["density"])
    g.doInitialPlace(1)
    g.doNesterovPlace(1)
    legalize(d)


def legalize(d):
    dp = d.getOpendp()
    dp.detailedPlacement(0, 0, "")


def clock_tree(d, p):
    """Triton CTS on the clock net, then re-legalize; returns the buffers it inserted."""
    tcl(d, f"create_clock -name clk -period {p['period']} [get_ports {{{p['clock']}}}]")
    cts = d.getTritonCts()
    opts = cts.getParms()
    opts.setClockNets(p["clock"])
    opts.setBufferList(p["cts_buffer"])
    opts.setRootBuffer(p["cts_buffer"])
    opts.setSinkBuffer(p["cts_buffer"])
    cts.setBufferList(p["cts_buffer"])
    cts.setRootBuffer(p["cts_buffer"])
    cts.setSinkBuffer(p["cts_buffer"])
    before = len(d.getBlock().getInsts())
    cts.runTritonCts()
    legalize(d)
    return len(d.getBlock().getInsts()) - before


def route(d, tech, p):
    gr = d.getGlobalRouter()
    gr.setMinRoutingLayer(tech.findLayer(p["route_layers"][0]).getRoutingLevel())
    gr.setMaxRoutingLayer(tech.findLayer(p["route_layers"][1]).getRoutingLevel())
    gr.globalRoute(True)
    if not gr.haveRoutes():
        raise Failed("global routing produced no routes")
    tr = d.getTritonRoute()
    ps = openroad.ParamStruct()
    ps.num_threads = 1
    ps.verbose = 0
    ps.doPa = True              # detailed_route's defaults (the struct's own are off)
    ps.enableViaGen = True
    tr.setParams(ps)
    tr.main()
    return tr.getNumDRVs()


def report(d, cmd: str) -> str:
    """A report's text (reports print to stdout; this captures it)."""
    return tcl(d, f"sta::redirect_string_begin; {cmd}; sta::redirect_string_end")


def wiring(block, dbu: int) -> tuple[float, int]:
    """Routed wirelength (um) and via count, from the routed wires in the database."""
    from openroad import odb
    length, vias = 0, 0
    for net in block.getNets():
        w = net.getWire()
        if w is None:
            continue
        length += w.getLength()
        dec = odb.dbWireDecoder()
        dec.begin(w)
        op = dec.next()
        while op != odb.dbWireDecoder.END_DECODE:
            vias += op in (odb.dbWireDecoder.VIA, odb.dbWireDecoder.TECH_VIA)
            op = dec.next()
    return length / dbu, vias


def measure(d, p, block) -> dict:
    """Parasitics of the routed wires (the PDK's per-layer RC) to a SPEF and the netlist as placed (CTS
    buffers included) for OpenSTA, which times it as it timed the synthesized netlist; areas and wiring here."""
    tcl(d, f"source {{{p['setrc']}}}")
    tcl(d, "estimate_parasitics -global_routing -spef_file routed.spef")
    tcl(d, "write_verilog routed.v")
    area = re.search(r"Design area\s+([\d.]+)\s+u\^2\s+([\d.]+)%", report(d, "report_design_area"))
    if not area:
        raise Failed("OpenROAD printed no design area")
    dbu = block.getDbUnitsPerMicron()
    core = block.getCoreArea()
    wl, vias = wiring(block, dbu)
    cells = sum(i.getMaster().getWidth() * i.getMaster().getHeight() for i in block.getInsts()) / dbu / dbu
    return {"cell_area_um2": round(cells, 4), "utilization_pct": float(area.group(2)),
            "core_w_um": core.dx() / dbu, "core_h_um": core.dy() / dbu,
            "core_area_um2": core.dx() * core.dy() / dbu / dbu, "wirelength_um": round(wl, 3), "vias": vias}


def main(cfg_path: str):
    p = json.loads(open(cfg_path).read())
    times, step = {}, "read"
    res = {}
    try:
        t0 = time.monotonic()
        t = openroad.Tech()
        t.readLiberty(p["lib"])
        for lef in p["lefs"]:
            t.readLef(lef)
        d = openroad.Design(t)
        d.readVerilog(p["netlist"])
        d.link(p["top"])
        tech = t.getDB().getTech()
        block = d.getBlock()
        res["cells"] = len(block.getInsts())
        times["read"] = time.monotonic() - t0
        for step, fn in (("floorplan", lambda: floorplan(d, tech, p)), ("place", lambda: place(d, p)),
                         ("cts", lambda: res.update(cts_buffers=clock_tree(d, p)) if p["clock"] and p["cts"]
                          else None),
                         ("route", lambda: res.update(drc=route(d, tech, p)))):
            t0 = time.monotonic()
            fn()
            times[step] = round(time.monotonic() - t0, 3)
        step = "measure"
        res.update(measure(d, p, block))
        d.writeDef("routed.def")
        res["seconds_by_step"] = times
    except Exception as e:          # a tool's error (RuntimeError from its logger) or ours
        res.update(error=str(e).strip()[:600] or type(e).__name__, step=step)
    with open("result.json", "w") as f:
        json.dump(res, f)
    sys.stdout.flush()
    return 1 if "error" in res else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
