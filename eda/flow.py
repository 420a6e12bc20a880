"""The evaluator: the stages of eda.stages.TABLE (screen -> lint -> sim -> interface/equiv -> synth -> sta
[-> pnr]), early exit, cached.

One job description (FlowJob: testbench, verdict rule, simulators, reference, clock, PDK, limits, ...)
and one entry, `evaluate(job, candidate)`, as edalize has one EDAM per build; a task builds its job
with `Task.flow_job()`, so every caller judges a candidate the same way.

    job = FlowJob(top="add", tb={"tb.v": tb_text}, pdk="nangate45")
    report = evaluate(job, {"add.v": text})
"""
import importlib
import time
from dataclasses import dataclass, field, replace
from pathlib import Path

from . import pdk as pdks
from . import stages as stages_
from . import tools
from .adapters import Ctx
from .cache import Cache, code_version, key, text_hash
from .config import cache_dir
from .observe import VERSION as OBSERVE_VERSION
from .pnr import rekeep
from .report import Diagnostic, Report, StageResult
from .sandbox import Sandbox, isolation_mode
from .sources import as_texts
from .verdict import get_rule, rule_key

# what `stages=` (and `rtl-agent eval --stages`) accepts: every stage but those run as part of another;
# ALL_STAGES is the default list, KNOWN_STAGES adds the optional ones (pnr)
FRONT = tuple(s.name for s in stages_.TABLE if s.group == "front" and not s.run_with)
BACK = tuple(s.name for s in stages_.TABLE if s.group == "back" and not s.run_with)
ALL_STAGES = tuple(s for s in stages_.STAGES if s not in stages_.RUN_WITH)
KNOWN_STAGES = tuple(s for s in stages_.KNOWN if s not in stages_.RUN_WITH)


@dataclass(frozen=True)
class FlowJob:
    """How a candidate is judged: everything but the candidate itself. Sources (testbench, reference)
    are read into name -> text at construction, so a job is a complete, self-contained description."""
    top: str
    tb: dict = field(default_factory=dict)            # testbench files (+ data files); a .py runs through cocotb
    tb_top: str | None = None
    verdict: object = None                            # sim verdict rule (preset, mapping, VerdictRule; None: detect)
    sim_flags: dict = field(default_factory=dict)     # extra compile flags per simulator
    simulators: tuple = ("icarus", "verilator")       # tried in order; one after calibrate()
    sim_fallback_on_fail: bool = False                # a failing simulation is retried on the next simulator
    ref: dict = field(default_factory=dict)           # reference sources: interface + equivalence stages
    clock: str | None = "auto"                        # clock port; auto: detect; None: none (STA: virtual)
    reset: str | None = None
    period: float = 10.0                              # ns
    observe: object = None                            # eda.observe.Observe: the spec's don't-cares; None: strict
    pdk: str = "nangate45"
    corner: str | None = None
    stages: tuple = ALL_STAGES
    limits: dict = field(default_factory=dict)        # per stage: {"sim": {"timeout_s": ...}, ...}
    equiv: dict = field(default_factory=dict)         # options of eda.equiv.equivalence (depth, seed, ...)
    pnr: dict = field(default_factory=dict)           # place-and-route options (eda.pnr.DEFAULTS)
    use_cache: bool = True
    cache: Cache | None = field(default=None, compare=False)
    keep: str | None = field(default=None, compare=False)   # pnr: folder for its routed DEF (default: the cache's)

    def __post_init__(self):
        for name in ("tb", "ref"):
            object.__setattr__(self, name, as_texts(getattr(self, name)))
        object.__setattr__(self, "stages", tuple(self.stages))
        object.__setattr__(self, "simulators", tuple(self.simulators))
        object.__setattr__(self, "verdict", get_rule(self.verdict))
        object.__setattr__(self, "sim_flags", dict(self.sim_flags or {}))
        object.__setattr__(self, "limits", dict(self.limits or {}))
        object.__setattr__(self, "equiv", dict(self.equiv or {}))
        object.__setattr__(self, "pnr", dict(self.pnr or {}))

    def replace(self, **changes) -> "FlowJob":
        return replace(self, **changes)


def calibrate(job: FlowJob, reference, against_itself: bool = False) -> tuple[FlowJob, Report]:
    """Score the reference with its own testbench, falling back from one simulator to the next; the job
    returned keeps the simulator it passed with (some RTLLM testbenches race under Icarus but not
    Verilator), so candidates are judged by the simulator their reference passes. The reference is
    judged without a reference of its own, or with against_itself also checked equivalent to itself
    (optimize's baseline: one run instead of a calibration and a second evaluation)."""
    rep = evaluate(job.replace(sim_fallback_on_fail=True) if against_itself else
                   job.replace(sim_fallback_on_fail=True, ref={}, observe=None), reference)
    sim = rep.stages.get("sim")
    chosen = sim.data.get("simulator") if sim else None
    return (job.replace(simulators=(chosen,)) if chosen else job), rep


def evaluate(job: FlowJob, candidate) -> Report:
    """Score one candidate (`candidate`: dict name -> text, or paths) as `job` describes: the stages of
    eda.stages.TABLE that the job asks for, in the table's order, stopping at the first failure. Never
    raises for bad candidates."""
    if not isinstance(job, FlowJob):
        raise TypeError("evaluate(job, candidate): job must be an eda.flow.FlowJob")
    t0 = time.monotonic()
    texts = as_texts(candidate)
    rule = job.verdict
    front = [s for s in job.stages if s in FRONT]
    back = [s for s in job.stages if s in BACK]
    src_id, ver, iso = text_hash(texts), tools.key_versions(), isolation_mode()
    # Two cache entries: what depends on the testbench/reference, and what depends on the PDK,
    # so sweeping PDKs or clock periods re-simulates nothing.
    k_front = key({"src": src_id, "tb": text_hash(job.tb), "ref": text_hash(job.ref), "top": job.top,
                   "tb_top": job.tb_top, "clock": job.clock, "reset": job.reset, "stages": front,
                   "sims": list(job.simulators), "fallback": job.sim_fallback_on_fail, "equiv": job.equiv,
                   "code": code_version(), "tools": ver,
                   "isolation": iso,    # an unsandboxed result is never served as a sandboxed one
                   **({"verdict": rule_key(rule)} if rule else {}),
                   **({"sim_flags": job.sim_flags} if job.sim_flags else {}),
                   **({"observe": job.observe.to_dict(), "observe_version": OBSERVE_VERSION} if job.observe else {})})
    k_back = key({"src": src_id, "top": job.top, "pdk": job.pdk, "corner": job.corner, "clock": job.clock,
                  "period": job.period, "stages": back,
                  "lib": pdks.lib_hash(job.pdk, job.corner) if back else None, "code": code_version(),
                  "tools": ver, "isolation": iso, **_key_parts(job, back)}) if back else None
    cache = (job.cache or Cache()) if job.use_cache else None
    rep = Report(top=job.top, pdk=job.pdk, isolation=iso)
    ctx = Ctx(job, texts, _decoded(texts), rep)
    hit_front = cache.get(k_front) if cache else None
    if hit_front:
        rep.stages = {k: StageResult.from_dict(v) for k, v in hit_front["stages"].items()}
        rep.status = hit_front["status"]
    else:
        _walk(ctx, "front", front)
        if cache and not _timed_out(rep):   # timeouts depend on machine load: retry next time
            cache.put(k_front, {"status": rep.status, "stages": {k: v.to_dict() for k, v in rep.stages.items()}})
    hit_back = None
    if rep.ok and back:
        hit_back = cache.get(k_back) if cache else None
        pnr_hit = (hit_back or {}).get("stages", {}).get("pnr") or {}
        kept = Path((pnr_hit.get("data") or {}).get("def") or "")
        if job.keep and pnr_hit.get("status") == "pass" and not kept.is_file():
            hit_back = None     # the routed files asked for are gone (a removed temporary folder): route again
        if hit_back:
            for k, v in hit_back["stages"].items():
                rep.add(StageResult.from_dict(v))
            rep.area_um2, rep.delay_ns, rep.power_w, rep.ppa = (hit_back[x] for x in ("area_um2", "delay_ns",
                                                                                      "power_w", "ppa"))
            if job.keep and "pnr" in rep.stages:
                rekeep(rep.stages["pnr"], Path(job.keep))
        else:
            n = len(rep.stages)
            ctx.keep = (Path(job.keep) if job.keep else cache_dir() / "pnr" / k_back[:24]) if "pnr" in back else None
            _back(ctx, back)
            if cache and not _timed_out(rep):
                cache.put(k_back, {"stages": {k: v.to_dict() for k, v in list(rep.stages.items())[n:]},
                                   "area_um2": rep.area_um2, "delay_ns": rep.delay_ns, "power_w": rep.power_w,
                                   "ppa": rep.ppa})
    rep.cached = bool(hit_front) and (bool(hit_back) or not (rep.ok and back))
    rep.seconds = time.monotonic() - t0
    return rep


def _key_parts(job: FlowJob, names) -> dict:
    """What a requested stage adds to its group's cache key (its own options, a tool outside versions())."""
    out = {}
    for n in names:
        st = stages_.BY_NAME[n]
        out.update({f: getattr(job, f) for f in st.key})
        if st.tool:
            out[f"tool:{st.tool}"] = tools.get_tool(st.tool).version()
    return out


def _walk(ctx: Ctx, group: str, names) -> bool:
    """Run the table's stages of `group` that `names` asks for (and those whose outputs they read), in
    order, until one fails; the screen always runs first in the front group. False when one failed."""
    want = set(names) | ({"screen"} if group == "front" else set())
    reads = {i for n in want for i in stages_.BY_NAME[n].inputs}
    for st in stages_.TABLE:
        if st.group != group or st.run_with or not (st.name in want or reads & set(st.outputs)):
            continue
        mod, fn = st.adapter.split(":")
        got = getattr(importlib.import_module(mod), fn)(ctx)
        for r in [] if got is None else got if isinstance(got, list) else [got]:
            ctx.rep.add(r)
        if not ctx.rep.ok:
            return False
    return True


def _back(ctx: Ctx, names):
    try:
        ctx.lib = pdks.liberty(ctx.job.pdk, ctx.job.corner)
    except pdks.PdkMissing as e:
        ctx.rep.add(StageResult("synth", "error", diagnostics=[Diagnostic(str(e))]))
        return
    with Sandbox(prefix="rtla-synth-") as sb:
        ctx.work = sb.path
        _walk(ctx, "back", names)


def _timed_out(rep) -> bool:
    # a tool stopped by a sandbox limit is an `error`, and as load-dependent as a timeout (a lint killed by
    # the wall limit on a busy machine was cached and failed a later clean-clone CI run on the same host)
    return any(s.status.startswith(("timeout", "unknown")) or
               (s.status == "error" and any("stopped by the" in d.message for d in s.diagnostics))
               for s in rep.stages.values())


def _decoded(texts: dict) -> dict:
    return {n: t.decode("utf-8", "replace") if isinstance(t, bytes) else t for n, t in texts.items()}
