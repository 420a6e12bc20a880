"""Does a find hold on the other PDK? A gain that only steers one library's technology mapping is not a
better design: popcount16's `count = (count + 1'b0) + 5'd1` (proven equivalent) was 1.258x on Nangate45 and
1.089x on Sky130 (bench/results/find_rate_improve_r2.md). So the best design of a run is synthesized on the
other PDK too, against the reference and the reference's noise floor there; the simulation and proof are the
same (the flow caches them apart from the PDK), so this costs only synthesis and STA. At the end of a run the
find is also checked under strong synthesis on its own PDK (strong.py), reported after the other PDK.

    check(job, ref_src, top, code)   # {"pdk": "sky130hd", "ratio": 1.089, "noise_floor": 1.0, "holds": True}
"""
from __future__ import annotations

import json
from pathlib import Path

from eda.flow import FlowJob, calibrate, evaluate
from eda.pdk import PdkMissing
from rtl_agent.noise import noise_floor, top_files

from . import strong as strong_synth
from .kept import key_of, kept

OTHER = {"nangate45": "sky130hd", "sky130hd": "nangate45"}


def check(job: FlowJob, ref_src: dict, top: str, code: str) -> dict:
    """The design `code` against the reference on the PDK that `job` does not use: ratio, that PDK's noise
    floor, and holds (the ratio is above it). Never raises for a design or PDK that fails; says why."""
    other = OTHER.get(job.pdk)
    if not other:
        return {"pdk": None, "holds": None, "why": f"no second PDK known for {job.pdk}"}
    j = job.replace(pdk=other)
    try:
        ref = evaluate(j, top_files(ref_src, top))
    except PdkMissing as e:             # its Liberty file is not installed: said, not fatal
        return {"pdk": other, "holds": None, "why": str(e)}
    if not (ref.ok and ref.ppa):
        return {"pdk": other, "holds": None, "why": f"the reference: {ref.status} at {ref.failed_stage}"}
    rep = evaluate(j, {f"{top}.v": code})
    if not (rep.ok and rep.ppa):
        return {"pdk": other, "holds": False, "why": f"the design: {rep.status} at {rep.failed_stage}"}
    nf = noise_floor(j, ref_src, top, ref.ppa)
    r = ref.ppa / rep.ppa
    return {"pdk": other, "ratio": r, "noise_floor": nf.floor, "holds": nf.above(r),
            "ref_ppa": ref.ppa, "ppa": rep.ppa}


def cached_check(out: Path, job: FlowJob, ref_src: dict, top: str, code: str, strong: bool = False,
                 floor: float = 1.0) -> dict:
    """check(), kept in <run>/cross_pdk.json for this code and PDK (a resumed or re-reported run does not redo it).
    strong: also strong.cached_check() against the run's noise floor `floor`, under "strong"."""
    got = kept(out / "cross_pdk.json", key_of(job.pdk, code), lambda: check(job, ref_src, top, code))
    return {**got, "strong": strong_synth.cached_check(out, job, ref_src, top, code, floor)} if strong else got


def check_run(out: Path, task_name: str, pdk: str | None = None) -> dict | None:
    """For a finished run folder without the check (runs from before it): the task's calibrated job, its
    best.v. None when the best is the reference itself."""
    from designs import load_task
    best = json.loads((out / "best.json").read_text())
    if best.get("source") == "reference":
        return None
    task = load_task(task_name)
    src = task.reference_sources()
    job, _ = calibrate(task.flow_job(pdk or task.pdk), src, against_itself=True)
    return cached_check(out, job, src, task.top, (out / "best.v").read_text())


def describe(c: dict | None) -> str:
    return _describe_pdk(c) + strong_synth.describe((c or {}).get("strong"))


def _describe_pdk(c: dict | None) -> str:
    if not c or c.get("pdk") is None:
        return ""
    if c.get("ratio") is None:
        return f"; on {c['pdk']}: not measured ({c.get('why', '?')})"
    if c["holds"]:
        return f"; on {c['pdk']} it holds: {c['ratio']:.3f}x, above that PDK's noise floor of {c['noise_floor']:.3f}x"
    return (f"; on {c['pdk']} it does NOT hold: {c['ratio']:.3f}x against a noise floor of {c['noise_floor']:.3f}x "
            "(it may steer one library's mapping rather than be a better design)")
