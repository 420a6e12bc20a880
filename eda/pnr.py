"""Place and route with OpenROAD, then post-route timing and power with OpenSTA.

The synthesized netlist is floorplanned (utilization, aspect ratio), its pins placed, globally and
detail-placed, given a clock tree when it has a clock, globally and detail-routed (eda/scripts/pnr.py in
OpenROAD's Python module, in the sandbox); the routed wires' parasitics (the PDK's per-layer RC, setRC.tcl)
go to a SPEF that OpenSTA reads with the routed netlist, so post-route delay and power come from the same
timer, script and constraints as the post-synthesis ones. The routed DEF, netlist and SPEF are copied to
`keep` when given.
"""
import json
import shutil
import time
from pathlib import Path

from . import pdk as pdks
from .report import Diagnostic, StageResult
from .sandbox import Limits, run
from .scripts import HERE as SCRIPTS
from .sta import netlist_clock, timing_power
from .tools import ToolMissing
from .tools.openroad import OPENROAD

DEFAULTS = {"utilization": 0.4, "aspect_ratio": 1.0, "margin_um": 2.0, "density": 0.6, "cts": True}
KEPT = ("routed.def", "routed.v", "routed.spef", "openroad.log")


def options(given: dict | None) -> dict:
    """The floorplan options with defaults; ValueError for an unknown one or a value out of range."""
    o = {**DEFAULTS, **(given or {})}
    bad = set(o) - set(DEFAULTS)
    if bad:
        raise ValueError(f"unknown pnr option(s) {', '.join(sorted(bad))}; known: {', '.join(DEFAULTS)}")
    if not 0 < float(o["utilization"]) < 1:
        raise ValueError(f"pnr utilization must be between 0 and 1 (got {o['utilization']})")
    if not 0 < float(o["aspect_ratio"]) <= 10:
        raise ValueError(f"pnr aspect_ratio must be in (0, 10] (got {o['aspect_ratio']})")
    return o


def place_and_route(netlist: Path, top: str, pdk: str, lib: Path, clock="auto", period: float = 10.0,
                    opts: dict | None = None, limits: Limits | None = None, keep: Path | None = None) -> StageResult:
    lim = limits or Limits(wall_s=600, cpu_s=900, mem_mb=8192, disk_mb=4096)
    t0 = time.monotonic()
    wd = Path(netlist).parent
    data: dict = {}

    def done(status, diags, log=""):
        return StageResult("pnr", status, time.monotonic() - t0, "openroad", OPENROAD.version(), diags, data,
                           log[-3000:])
    try:
        o = options(opts)
        phys = pdks.physical(pdk)
        argv, env, ro = OPENROAD.script_cmd("pnr.py", "pnr.json"), OPENROAD.env(), OPENROAD.ro()
    except (ValueError, ToolMissing, pdks.PdkMissing) as e:
        return done("error", [Diagnostic(str(e))])
    if clock == "auto":
        clock = netlist_clock(Path(netlist).read_text(errors="replace"))
    cfg = {"netlist": Path(netlist).name, "top": top, "lib": str(lib), "lefs": [str(p) for p in phys["lefs"]],
           "setrc": str(phys["setrc"]), "site": phys["site"], "pin_layers": phys["pin_layers"],
           "route_layers": phys["route_layers"], "cts_buffer": phys["cts_buffer"], "clock": clock,
           "period": period, **o}
    (wd / "pnr.json").write_text(json.dumps(cfg))
    shutil.copy(SCRIPTS / "pnr.py", wd / "pnr.py")
    r = run(argv, wd, lim, env=env, ro=[lib, *phys["lefs"], phys["setrc"], *ro])
    (wd / "openroad.log").write_text(r.out)
    try:
        res = json.loads((wd / "result.json").read_text())
    except (OSError, ValueError):
        res = {}
    if r.timed_out or r.limit:
        return done("timeout" if r.timed_out or r.limit == "cpu" else "error",
                    [Diagnostic(f"OpenROAD stopped by the {r.limit or 'wall'} limit ({lim.wall_s:g} s wall)")], r.out)
    if "error" in res or r.rc != 0:
        why = res.get("error") or f"OpenROAD exited with {r.rc}: {r.out.strip()[-300:]}"
        errs = [line.strip() for line in r.out.splitlines() if line.startswith("[ERROR")]
        why = errs[-1][:300] if errs and len(why) < 40 else why   # the tool raises its message ID only
        return done("fail", [Diagnostic(f"place and route failed at {res.get('step', '?')}: {why} "
                                        f"(utilization {o['utilization']:g}, aspect ratio {o['aspect_ratio']:g})")],
                    r.out)
    data.update({k: v for k, v in res.items()}, utilization=o["utilization"], aspect_ratio=o["aspect_ratio"],
                clock=clock)
    if res.get("drc"):
        return done("fail", [Diagnostic(f"detailed routing left {res['drc']} DRC violations")], r.out)
    tp = timing_power(wd / "routed.v", top, lib, clock=clock, period=period, spef=wd / "routed.spef",
                      propagated=bool(clock and o["cts"]), name="pnr")
    if not tp.ok:
        return done(tp.status, tp.diagnostics, tp.log)
    data.update({k: tp.data[k] for k in ("delay_ns", "slack_ns", "power_w", "critical_path") if k in tp.data})
    if keep:
        _copy(wd, Path(keep), data)
    return done("pass", [], r.out)


def _copy(src: Path, keep: Path, data: dict):
    keep.mkdir(parents=True, exist_ok=True)
    for n in KEPT:
        if (src / n).is_file() and (src / n).resolve() != (keep / n).resolve():
            shutil.copy(src / n, keep / n)
    data["def"] = str(keep / "routed.def")


def rekeep(st: StageResult, keep: Path):
    """A pnr result served from the cache: its files copied from where that run kept them to `keep` (the
    folder is no part of the cache key). Left as is when they are gone."""
    old = Path(st.data.get("def") or "")
    if st.ok and old.is_file():
        _copy(old.parent, Path(keep), st.data)
