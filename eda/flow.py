"""The evaluator: screen -> lint -> sim -> interface/equiv -> synth -> sta, early exit, cached.

    report = evaluate({"add.v": text}, top="add", pdk="nangate45", tb=[tb_path])
"""
import time

from . import pdk as pdks
from . import stages as stages_
from . import tools
from .cache import FLOW_VERSION, Cache, key, text_hash
from .lint import lint
from .observe import VERSION as OBSERVE_VERSION
from .report import Diagnostic, Report, StageResult
from .hdl import decode_source, module_names
from .sandbox import Sandbox, isolation_mode, screen
from .simulate import simulate
from .sources import HDL_SUFFIXES, as_texts
from .sta import timing_power
from .synth import synthesize
from .verdict import get_rule, rule_key

# what `stages=` (and `rtl-agent eval --stages`) accepts: every stage but those run as part of another
FRONT = tuple(s for s in stages_.FRONT if s not in stages_.RUN_WITH)
BACK = tuple(s for s in stages_.BACK if s not in stages_.RUN_WITH)
ALL_STAGES = FRONT + BACK


def evaluate(sources, top: str, pdk: str = "nangate45", corner: str | None = None, tb=None,
             tb_top: str | None = None, ref=None, clock: str | None = "auto", reset: str | None = None,
             period: float = 10.0, stages=ALL_STAGES, simulators=("icarus", "verilator"),
             sim_fallback_on_fail: bool = False,
             use_cache: bool = True, cache: Cache | None = None, limits: dict | None = None,
             equiv_opts: dict | None = None, verdict=None, sim_flags: dict | None = None, observe=None) -> Report:
    """Score one candidate. `sources`: dict name->text or paths. `tb`: testbench files (+ data files;
    a Python test module runs through cocotb). `ref`: reference sources for the interface/equivalence
    stages. `verdict`: the sim verdict rule (preset name, mapping, eda.verdict.VerdictRule; None: detect
    from the testbench); `sim_flags`: extra compile flags per simulator; `observe`: the task's observation
    rule (eda.observe.Observe; None: strict equivalence). Never raises for bad candidates."""
    t0 = time.monotonic()
    texts = as_texts(sources)
    tb_texts = as_texts(tb)
    ref_texts = as_texts(ref)
    lims = limits or {}
    eq = equiv_opts or {}
    rule = get_rule(verdict)
    front = [s for s in stages if s in FRONT]
    back = [s for s in stages if s in BACK]
    src_id, ver, iso = text_hash(texts), tools.versions(), isolation_mode()
    # Two cache entries: what depends on the testbench/reference, and what depends on the PDK,
    # so sweeping PDKs or clock periods re-simulates nothing.
    k_front = key({"src": src_id, "tb": text_hash(tb_texts), "ref": text_hash(ref_texts), "top": top,
                   "tb_top": tb_top, "clock": clock, "reset": reset, "stages": front, "sims": list(simulators),
                   "fallback": sim_fallback_on_fail, "equiv": eq, "flow": FLOW_VERSION, "tools": ver,
                   "isolation": iso,    # an unsandboxed result is never served as a sandboxed one
                   **({"verdict": rule_key(rule)} if rule else {}), **({"sim_flags": sim_flags} if sim_flags else {}),
                   **({"observe": observe.to_dict(), "observe_version": OBSERVE_VERSION} if observe else {})})
    k_back = key({"src": src_id, "top": top, "pdk": pdk, "corner": corner, "clock": clock, "period": period,
                  "stages": back, "lib": pdks.lib_hash(pdk, corner) if back else None, "flow": FLOW_VERSION,
                  "tools": ver, "isolation": iso}) if back else None
    cache = (cache or Cache()) if use_cache else None
    rep = Report(top=top, pdk=pdk, isolation=iso)
    hit_front = cache.get(k_front) if cache else None
    if hit_front:
        rep.stages = {k: StageResult.from_dict(v) for k, v in hit_front["stages"].items()}
        rep.status = hit_front["status"]
    else:
        _front(rep, texts, tb_texts, ref_texts, top, tb_top, clock, reset, front, simulators, lims, eq,
               sim_fallback_on_fail, rule, sim_flags, observe)
        if cache and not _timed_out(rep):   # timeouts depend on machine load: retry next time
            cache.put(k_front, {"status": rep.status, "stages": {k: v.to_dict() for k, v in rep.stages.items()}})
    hit_back = None
    if rep.ok and back:
        hit_back = cache.get(k_back) if cache else None
        if hit_back:
            for k, v in hit_back["stages"].items():
                rep.add(StageResult.from_dict(v))
            rep.area_um2, rep.delay_ns, rep.power_w, rep.ppa = (hit_back[x] for x in ("area_um2", "delay_ns",
                                                                                      "power_w", "ppa"))
        else:
            n = len(rep.stages)
            _back(rep, _decoded(texts), top, pdk, corner, clock, period, back, lims)
            if cache and not _timed_out(rep):
                cache.put(k_back, {"stages": {k: v.to_dict() for k, v in list(rep.stages.items())[n:]},
                                   "area_um2": rep.area_um2, "delay_ns": rep.delay_ns, "power_w": rep.power_w,
                                   "ppa": rep.ppa})
    rep.cached = bool(hit_front) and (bool(hit_back) or not (rep.ok and back))
    rep.seconds = time.monotonic() - t0
    return rep



def _timed_out(rep) -> bool:
    return any(s.status.startswith(("timeout", "unknown")) for s in rep.stages.values())


def _decoded(texts: dict) -> dict:
    return {n: t.decode("utf-8", "replace") if isinstance(t, bytes) else t for n, t in texts.items()}


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
    tb_mods = {m for n, t in tb_texts.items() if isinstance(t, str) and str(n).endswith(HDL_SUFFIXES)
               for m in module_names(t)}
    clash = sorted(tb_mods & set(mods))
    if clash:
        reasons.append(f"candidate defines module(s) {', '.join(clash)} that the testbench defines")
    return StageResult("screen", "rejected" if reasons else "pass", time.monotonic() - t0, "rtl-agent", FLOW_VERSION,
                       [Diagnostic(r) for r in reasons])


def _front(rep, texts, tb_texts, ref_texts, top, tb_top, clock, reset, stages, simulators, lims, equiv_opts,
           sim_fallback_on_fail, rule=None, sim_flags=None, observe=None):
    def go(st: StageResult) -> bool:
        rep.add(st)
        return rep.ok
    if not go(_screen(texts, top, tb_texts)):
        return
    texts = _decoded(texts)
    if "lint" in stages and not go(lint(texts, top, limits=lims.get("lint"))):
        return
    if "sim" in stages and tb_texts:
        if not go(simulate(texts, tb_texts, tb_top=tb_top, limits=lims.get("sim"), simulators=simulators,
                           fallback_on_fail=sim_fallback_on_fail, verdict_rule=rule, dut_top=top,
                           sim_flags=sim_flags)):
            return
    if "equiv" in stages and ref_texts:
        from .equiv import check_interface   # lazy: heavier, and only with a reference
        from .observe import equivalence
        if not go(check_interface(texts, ref_texts, top)):
            return
        go(equivalence(texts, ref_texts, top, observe, clock=None if clock == "auto" else clock, reset=reset,
                       **equiv_opts))


def _back(rep, texts, top, pdk, corner, clock, period, stages, lims):
    def go(st: StageResult) -> bool:
        rep.add(st)
        return rep.ok
    try:
        lib = pdks.liberty(pdk, corner)
    except pdks.PdkMissing as e:
        rep.add(StageResult("synth", "error", diagnostics=[Diagnostic(str(e))]))
        return
    with Sandbox(prefix="rtla-synth-") as sb:
        st = synthesize(texts, top, lib, sb.path, limits=lims.get("synth"), cells=pdks.CELLS[pdk])
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
