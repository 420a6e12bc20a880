"""The evaluator: screen -> lint -> sim -> interface/equiv -> synth -> sta, early exit, cached.

    report = evaluate({"add.v": text}, top="add", pdk="nangate45", tb=[tb_path])
"""
import time
from pathlib import Path

from . import pdk as pdks
from . import tools
from .cache import FLOW_VERSION, Cache, key, text_hash
from .lint import lint
from .report import Diagnostic, Report, StageResult
from .sandbox import Limits, Sandbox, decode_source, module_names, screen
from .simulate import simulate
from .sources import as_texts
from .sta import timing_power
from .synth import synthesize

ALL_STAGES = ("screen", "lint", "sim", "equiv", "synth", "sta")


def evaluate(sources, top: str, pdk: str = "nangate45", corner: str | None = None, tb=None,
             tb_top: str | None = None, ref=None, clock: str | None = "auto", reset: str | None = None,
             period: float = 10.0, stages=ALL_STAGES, simulators=("icarus", "verilator"),
             use_cache: bool = True, cache: Cache | None = None, limits: dict | None = None,
             equiv_opts: dict | None = None) -> Report:
    """Score one candidate. `sources`: dict name->text or paths. `tb`: testbench files (+ data files).
    `ref`: reference sources for the interface/equivalence stages. Never raises for bad candidates."""
    t0 = time.monotonic()
    texts = as_texts(sources)
    tb_texts = as_texts(tb)
    ref_texts = as_texts(ref)
    lims = limits or {}
    settings = {"top": top, "pdk": pdk, "corner": corner, "tb_top": tb_top, "clock": clock, "reset": reset,
                "period": period, "stages": list(stages), "simulators": list(simulators),
                "equiv": equiv_opts or {}, "flow": FLOW_VERSION}
    k = None
    if use_cache:
        lib_id = pdks.lib_hash(pdk, corner) if "synth" in stages else None
        k = key({"src": text_hash(texts), "tb": text_hash(tb_texts), "ref": text_hash(ref_texts),
                 "settings": settings, "lib": lib_id, "tools": tools.versions()})
        cache = cache or Cache()
        hit = cache.get(k)
        if hit:
            rep = Report.from_dict(hit)
            rep.cached = True
            rep.seconds = time.monotonic() - t0
            return rep
    rep = Report(top=top, pdk=pdk)
    _run_stages(rep, texts, tb_texts, ref_texts, top, pdk, corner, tb_top, clock, reset, period, stages,
                simulators, lims, equiv_opts or {})
    rep.seconds = time.monotonic() - t0
    if use_cache and rep.status not in ("timeout",):   # timeouts depend on machine load: retry next time
        cache.put(k, rep.to_dict())
    return rep


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
        reasons += screen(t, name)
    mods = [m for t in decoded.values() for m in module_names(t)]
    if decoded and not reasons and top not in mods:
        reasons.append(f"top module '{top}' not found (modules defined: {', '.join(mods) or 'none'})")
    tb_mods = {m for t in tb_texts.values() if isinstance(t, str) for m in module_names(t)}
    clash = sorted(tb_mods & set(mods))
    if clash:
        reasons.append(f"candidate defines module(s) {', '.join(clash)} that the testbench defines")
    texts.update(decoded)
    return StageResult("screen", "rejected" if reasons else "pass", time.monotonic() - t0, "rtl-agent", FLOW_VERSION,
                       [Diagnostic(r) for r in reasons])


def _run_stages(rep, texts, tb_texts, ref_texts, top, pdk, corner, tb_top, clock, reset, period, stages,
                simulators, lims, equiv_opts):
    def go(st: StageResult) -> bool:
        rep.add(st)
        return rep.ok
    if not go(_screen(texts, top, tb_texts)):
        return
    if "lint" in stages and not go(lint(texts, top, limits=lims.get("lint"))):
        return
    if "sim" in stages and tb_texts:
        if not go(simulate(texts, tb_texts, tb_top=tb_top, limits=lims.get("sim"), simulators=simulators)):
            return
    if "equiv" in stages and ref_texts:
        from .equiv import check_interface, equivalence   # lazy: heavier, and only with a reference
        if not go(check_interface(texts, ref_texts, top)):
            return
        if not go(equivalence(texts, ref_texts, top, clock=None if clock == "auto" else clock, reset=reset,
                              **equiv_opts)):
            return
    if "synth" not in stages:
        return
    try:
        lib = pdks.liberty(pdk, corner)
    except pdks.PdkMissing as e:
        rep.add(StageResult("synth", "error", diagnostics=[Diagnostic(str(e))]))
        return
    with Sandbox(prefix="rtla-synth-") as sb:
        st = synthesize(texts, top, lib, sb.path, limits=lims.get("synth"))
        if not go(st):
            return
        rep.area_um2 = st.data["area_um2"]
        st.data.pop("netlist", None)   # the temp dir goes away; a path to it would mislead
        if "sta" not in stages:
            return
        tp = timing_power(sb.path / "netlist.v", top, lib, clock=clock, period=period, limits=lims.get("sta"))
        if not go(tp):
            return
    rep.delay_ns = tp.data["delay_ns"]
    rep.power_w = tp.data["power_w"]
    if rep.area_um2 is not None and rep.delay_ns is not None and rep.power_w is not None:
        rep.ppa = rep.area_um2 * rep.delay_ns * rep.power_w
