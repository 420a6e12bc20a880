"""One function per row of eda.stages.TABLE: runs that stage for eda.flow.evaluate. Each takes the run's
context (`Ctx`: the job, the sources, the back stages' work folder, Liberty file and netlist) and returns
a StageResult, a list of them (equiv: interface, then equivalence), or None when the stage does not apply
(no testbench, no reference)."""
import time
from dataclasses import dataclass
from pathlib import Path

from .cache import FLOW_VERSION
from .hdl import decode_source, module_names
from .report import Diagnostic, StageResult
from .screen import screen as screen_source
from .sources import HDL_SUFFIXES
from .lint import lint as _lint
from .pnr import place_and_route
from .simulate import simulate
from .sta import timing_power
from .stages import BY_NAME
from .synth import synthesize
from . import pdk as pdks


@dataclass
class Ctx:
    job: object                 # eda.flow.FlowJob
    raw: dict                   # the candidate as given (bytes or text)
    texts: dict                 # decoded
    rep: object                 # the Report being filled (synth and sta set its PPA numbers)
    work: Path | None = None    # back stages: one sandbox folder for synth, sta, pnr
    lib: Path | None = None
    netlist: Path | None = None
    keep: Path | None = None    # where stages keep their files (eda.stages `artifacts`: pnr's DEF, netlist, SPEF)

    def options(self, stage: str) -> dict:
        """The stage's options: the defaults its row declares, then the job's."""
        return {**(BY_NAME[stage].options or {}), **self.job.options.get(stage, {})}


def calibrated(job, rep):
    """`job` judged by the simulator its reference passed with in `rep` (eda.flow.calibrate)."""
    sim = rep.stages.get("sim")
    chosen = sim.data.get("simulator") if sim else None
    return job.replace(simulators=(chosen,)) if chosen else job


def screen(c: Ctx):
    return _screen(c.raw, c.job.top, c.job.tb)


def _screen(texts: dict, top: str, tb_texts: dict) -> StageResult:
    t0 = time.monotonic()
    reasons = []
    if not texts:
        reasons.append("no source files given")
    decoded = {}
    for name, t in texts.items():
        if isinstance(t, bytes):
            t, why = decode_source(t, name)
            if why:
                reasons.append(why)
                continue
        decoded[name] = t
        reasons += screen_source(t, name)
    mods = [m for t in decoded.values() for m in module_names(t)]
    if decoded and not reasons and top not in mods:
        reasons.append(f"top module '{top}' not found (modules defined: {', '.join(mods) or 'none'})")
    tb_mods = {m for n, t in tb_texts.items() if isinstance(t, str) and str(n).endswith(HDL_SUFFIXES)
               for m in module_names(t)}
    clash = sorted(tb_mods & set(mods))
    if clash:
        reasons.append(f"candidate defines module(s) {', '.join(clash)} that the testbench defines")
    return StageResult("screen", "rejected" if reasons else "pass", time.monotonic() - t0, "rtl-agent", FLOW_VERSION,
                       [Diagnostic(r) for r in reasons])


def lint(c: Ctx):
    return _lint(c.texts, c.job.top, limits=c.job.limits.get("lint"))


def sim(c: Ctx):
    j = c.job
    if not j.tb:
        return None
    return simulate(c.texts, j.tb, tb_top=j.tb_top, limits=j.limits.get("sim"), simulators=j.simulators,
                    fallback_on_fail=j.sim_fallback_on_fail, verdict_rule=j.verdict, dut_top=j.top,
                    sim_flags=j.sim_flags or None)


def equiv(c: Ctx):
    j = c.job
    if not j.ref:
        return None
    from .equiv import check_interface   # lazy: heavier, and only with a reference
    from .observe import equivalence
    # the sources were screened once, first: the stages below do not screen them again
    st = check_interface(c.texts, j.ref, j.top, screened=True)
    if not st.ok:
        return [st]
    return [st, equivalence(c.texts, j.ref, j.top, j.observe, clock=None if j.clock == "auto" else j.clock,
                            reset=j.reset, screened=True, **c.options("equiv"))]


def synth(c: Ctx):
    j = c.job
    st = synthesize(c.texts, j.top, c.lib, c.work, limits=j.limits.get("synth"), cells=pdks.get(j.pdk).cells)
    if st.ok:
        c.rep.area_um2 = st.data["area_um2"]
        c.netlist = Path(st.data.pop("netlist"))   # the temp dir goes away; a path to it would mislead
    return st


def sta(c: Ctx):
    j = c.job
    tp = timing_power(c.netlist, j.top, c.lib, clock=j.clock, period=j.period, limits=j.limits.get("sta"))
    if tp.ok:
        r = c.rep
        r.delay_ns, r.power_w = tp.data["delay_ns"], tp.data["power_w"]
        if r.area_um2 is not None and r.delay_ns is not None and r.power_w is not None:
            r.ppa = r.area_um2 * r.delay_ns * r.power_w
    return tp


def pnr(c: Ctx):
    j = c.job
    return place_and_route(c.netlist, j.top, j.pdk, c.lib, clock=j.clock, period=j.period, opts=c.options("pnr"),
                           limits=j.limits.get("pnr"), keep=c.keep)
