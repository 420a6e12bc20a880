"""The evaluator: the stages of eda.stages.TABLE (screen -> lint -> sim -> interface/equiv -> synth -> sta
[-> pnr]), early exit, cached. No stage is named here: each is a row of that table (its group, inputs,
options, kept files) and a function that runs it.

One job description (FlowJob: testbench, verdict rule, simulators, reference, clock, PDK, limits, ...)
and one entry, `evaluate(job, candidate)`, as edalize has one EDAM per build; a task builds its job
with `Task.flow_job()`, so every caller judges a candidate the same way.

    job = FlowJob(top="add", tb={"tb.v": tb_text}, pdk="nangate45")
    report = evaluate(job, {"add.v": text})
"""
import time
from dataclasses import dataclass, field, replace
from pathlib import Path

from . import kept
from . import pdk as pdks
from . import stages as stages_
from . import tools
from .adapters import Ctx, calibrated
from .cache import Cache, code_version, key, text_hash
from .config import cache_dir
from .observe import VERSION as OBSERVE_VERSION
from .report import Diagnostic, Report, StageResult
from .sandbox import Sandbox, isolation_mode
from .sources import as_texts
from .verdict import get_rule, rule_key

# what `stages=` (and `rtl-agent eval --stages`) accepts: every stage but those run as part of another;
# ALL_STAGES is the default list, KNOWN_STAGES adds the optional ones (pnr)
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
    pdk: str = pdks.DEFAULT_PDK
    corner: str | None = None
    stages: tuple = ALL_STAGES
    limits: dict = field(default_factory=dict)        # per stage: {"sim": {"timeout_s": ...}, ...}
    # per stage, over the defaults its row of eda.stages.TABLE declares: {"pnr": {"utilization": 0.5}, ...}
    options: dict = field(default_factory=dict)
    use_cache: bool = True
    cache: Cache | None = field(default=None, compare=False)
    # stages' kept files (pnr: routed DEF, netlist, SPEF); default: a folder of the cache
    keep: str | None = field(default=None, compare=False)

    def __post_init__(self):
        for name in ("tb", "ref"):
            object.__setattr__(self, name, as_texts(getattr(self, name)))
        object.__setattr__(self, "stages", tuple(self.stages))
        object.__setattr__(self, "simulators", tuple(self.simulators))
        object.__setattr__(self, "verdict", get_rule(self.verdict))
        object.__setattr__(self, "sim_flags", dict(self.sim_flags or {}))
        object.__setattr__(self, "limits", dict(self.limits or {}))
        object.__setattr__(self, "options", {n: dict(o or {}) for n, o in (self.options or {}).items()})
        takes = [n for n, s in stages_.BY_NAME.items() if s.options is not None]
        bad = sorted(n for n in self.options if n not in takes)
        if bad:
            raise ValueError(f"options for stage(s) that take none: {', '.join(bad)}; stages with options: "
                             f"{', '.join(takes)}")

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
    return calibrated(job, rep), rep


def evaluate(job: FlowJob, candidate) -> Report:
    """Score one candidate (`candidate`: dict name -> text, or paths) as `job` describes: the stages of
    eda.stages.TABLE that the job asks for, in the table's order, stopping at the first failure. Never
    raises for bad candidates."""
    if not isinstance(job, FlowJob):
        raise TypeError("evaluate(job, candidate): job must be an eda.flow.FlowJob")
    t0 = time.monotonic()
    texts = as_texts(candidate)
    rule = job.verdict
    front, back = _asked(job, "front"), _asked(job, "back")
    src_id, ver, iso = text_hash(texts), tools.key_versions(), isolation_mode()
    # Two cache entries: what depends on the testbench/reference, and what depends on the PDK,
    # so sweeping PDKs or clock periods re-simulates nothing.
    k_front = key({"src": src_id, "tb": text_hash(job.tb), "ref": text_hash(job.ref), "top": job.top,
                   "tb_top": job.tb_top, "clock": job.clock, "reset": job.reset, "stages": front,
                   "sims": list(job.simulators), "fallback": job.sim_fallback_on_fail,
                   "code": code_version(), "tools": ver,
                   "isolation": iso,    # an unsandboxed result is never served as a sandboxed one
                   **({"verdict": rule_key(rule)} if rule else {}),
                   **({"sim_flags": job.sim_flags} if job.sim_flags else {}),
                   **({"observe": job.observe.to_dict(), "observe_version": OBSERVE_VERSION} if job.observe else {}),
                   **_key_parts(job, front)})
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
        if not (hit_back and _served(rep, hit_back, job.keep)):
            hit_back = None
            n = len(rep.stages)
            keeps = any(stages_.BY_NAME[s].artifacts for s in back)
            ctx.keep = (Path(job.keep) if job.keep else cache_dir() / "kept" / k_back[:24]) if keeps else None
            ran = _back(ctx, back)
            if cache and ran and not _timed_out(rep):
                cache.put(k_back, {"stages": {k: v.to_dict() for k, v in list(rep.stages.items())[n:]},
                                   "area_um2": rep.area_um2, "delay_ns": rep.delay_ns, "power_w": rep.power_w,
                                   "ppa": rep.ppa, **({"kept": str(ctx.keep)} if ctx.keep else {})})
    rep.cached = bool(hit_front) and (bool(hit_back) or not (rep.ok and back))
    rep.seconds = time.monotonic() - t0
    return rep


def _asked(job: FlowJob, group: str) -> list:
    """The stages of `group` the job asks for (registered ones only, none run as part of another)."""
    by = stages_.BY_NAME
    return [s for s in job.stages if s in by and by[s].group == group and not by[s].run_with]


def _served(rep: Report, hit: dict, keep: str | None) -> bool:
    """Fill `rep` from a cached back-group entry. False (nothing filled) when the caller asks for the stages'
    kept files and they are gone (kept in a removed temporary folder): the stages run again."""
    results = [StageResult.from_dict(v) for v in hit["stages"].values()]
    with_files = [(stages_.BY_NAME[r.name], r) for r in results
                  if r.name in stages_.BY_NAME and stages_.BY_NAME[r.name].artifacts]
    old = Path(hit.get("kept") or "")
    if keep and with_files and not (hit.get("kept") and kept.present(with_files, old)):
        return False
    if keep and with_files:
        kept.rekeep(with_files, old, Path(keep))
    for r in results:
        rep.add(r)
    rep.area_um2, rep.delay_ns, rep.power_w, rep.ppa = (hit[x] for x in ("area_um2", "delay_ns", "power_w", "ppa"))
    return True


def _key_parts(job: FlowJob, names) -> dict:
    """What a requested stage adds to its group's cache key (its options, a tool outside versions())."""
    out = {}
    for n in names:
        st = stages_.BY_NAME[n]
        if st.options is not None:
            out[n] = job.options.get(n, {})
        if st.tool:
            out[f"tool:{st.tool}"] = tools.get_tool(st.tool).version()
    return out


def _plan(group: str, names) -> list:
    """The table's stages of `group` that `names` asks for, those whose outputs they read, and those that
    always run, in table order."""
    want = set(names)
    reads = {i for n in want for i in stages_.BY_NAME[n].inputs}
    return [st for st in stages_.TABLE if st.group == group and not st.run_with and
            (st.always or st.name in want or reads & set(st.outputs))]


def _walk(ctx: Ctx, group: str, names) -> bool:
    """Run the planned stages of `group` in order until one fails. False when one failed."""
    for st in _plan(group, names):
        got = st.run(ctx)
        for r in [] if got is None else got if isinstance(got, list) else [got]:
            ctx.rep.add(r)
        if not ctx.rep.ok:
            return False
    return True


def _back(ctx: Ctx, names) -> bool:
    """Run the back stages; False when the PDK's files are missing: a fact of this machine, not of the design,
    so the caller does not cache it (a clone without ../shared would otherwise poison later runs)."""
    try:
        ctx.lib = pdks.liberty(ctx.job.pdk, ctx.job.corner)
    except pdks.PdkMissing as e:
        ctx.rep.add(StageResult(_plan("back", names)[0].name, "error", diagnostics=[Diagnostic(str(e))]))
        return False
    with Sandbox(prefix="rtla-synth-") as sb:
        ctx.work = sb.path
        _walk(ctx, "back", names)
    return True


def _timed_out(rep) -> bool:
    # a tool stopped by a sandbox limit is an `error`, and as load-dependent as a timeout (a lint killed by
    # the wall limit on a busy machine was cached and failed a later clean-clone CI run on the same host)
    return any(s.status.startswith(("timeout", "unknown")) or
               (s.status == "error" and any("stopped by the" in d.message for d in s.diagnostics))
               for s in rep.stages.values())


def _decoded(texts: dict) -> dict:
    return {n: t.decode("utf-8", "replace") if isinstance(t, bytes) else t for n, t in texts.items()}
