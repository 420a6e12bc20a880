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
from dataclasses import dataclass
from pathlib import Path

from . import pdk as pdks
from .kept import copy
from .report import Diagnostic, StageResult
from .sandbox import Limits, run
from .scripts import HERE as SCRIPTS
from .sta import netlist_clock, timing_power
from .stages import BY_NAME
from .tools import ToolMissing
from .tools.openroad import OPENROAD

STAGE = BY_NAME["pnr"]          # its options with their defaults, the files it keeps
DEFAULTS = STAGE.options


@dataclass(frozen=True)
class Routed:
    """A design's post-route numbers: placed cell area x post-route delay x post-route power."""
    area_um2: float             # placed standard cells
    delay_ns: float | None      # None: not timed (the routed design's timing reported none)
    power_w: float | None
    core_area_um2: float
    wirelength_um: float
    vias: int
    drc: int
    seconds: float = 0.0
    def_path: str | None = None

    @property
    def ppa(self) -> float | None:
        if self.delay_ns is None or self.power_w is None:
            return None
        return self.area_um2 * self.delay_ns * self.power_w

    @classmethod
    def of(cls, rep) -> "Routed | None":
        """The report's routed numbers; None when its pnr stage did not pass."""
        st = rep.stages.get(STAGE.name)
        if not (st and st.ok):
            return None
        d = st.data
        return cls(d["cell_area_um2"], d.get("delay_ns"), d.get("power_w"), d["core_area_um2"], d["wirelength_um"],
                   d["vias"], d["drc"], st.seconds, d.get("def"))


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
        phys = pdks.physical(pdk)       # the record, its LEF and setRC paths found
        argv, env, ro = OPENROAD.script_cmd("pnr.py", "pnr.json"), OPENROAD.env(), OPENROAD.ro()
    except (ValueError, ToolMissing, pdks.PdkMissing) as e:
        return done("error", [Diagnostic(str(e))])
    if clock == "auto":
        clock = netlist_clock(Path(netlist).read_text(errors="replace"))
    cfg = {"netlist": Path(netlist).name, "top": top, "lib": str(lib), "lefs": [str(p) for p in phys.lefs],
           "setrc": str(phys.setrc), "site": phys.site, "pin_layers": phys.pin_layers,
           "route_layers": phys.route_layers, "cts_buffer": phys.cts_buffer, "clock": clock,
           "period": period, **o}
    (wd / "pnr.json").write_text(json.dumps(cfg))
    shutil.copy(SCRIPTS / "pnr.py", wd / "pnr.py")
    r = run(argv, wd, lim, env=env, ro=[lib, *phys.lefs, phys.setrc, *ro])
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
        copy(wd, Path(keep), STAGE.artifacts)
        data["def"] = str(Path(keep) / "routed.def")
    return done("pass", [], r.out)

