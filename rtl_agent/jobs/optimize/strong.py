"""Does a find hold under strong synthesis? The default Yosys script can make two RTL versions differ that a
stronger flow maps alike (RTL-OPT, arXiv 2601.01765): adder_32bit's `{C32, S} = A + B` is 1.24x the reference
under the default script, and 0.98x when each keeps its best of the open scripts in eda/synth_strong.py. So at the
end of a run the best design and the reference are synthesized with each of those scripts, on the run's PDK;
each keeps its lowest PPA, and the find holds when the reference's over the design's is still above the noise
floor the find had to clear. The proof is the run's; this costs only synthesis and STA: a median 14 s a find
over the committed finds, 5 min for RTLLM's alu (bench/results/strong_synth.md); --no-cross-pdk skips it.

    check(job, ref_src, top, code, floor)   # {"ratio": 0.977, "holds": False, "ref_script": "deep", ...}
"""
from __future__ import annotations

from pathlib import Path

from eda.flow import FlowJob
from eda.pdk import PdkMissing
from eda.synth_strong import compare, strong_ppa
from rtl_agent.noise import top_files

from .kept import key_of, kept


def check(job: FlowJob, ref_src: dict, top: str, code: str, floor: float = 1.0) -> dict:
    """The design `code` against the reference, each at its best over the strong scripts: ratio, holds (above
    `floor`), which script won each; never raises for a design or PDK that fails: says why."""
    where = dict(pdk=job.pdk, corner=job.corner, clock=job.clock, period=job.period)
    try:
        ref = strong_ppa(top_files(ref_src, top), top, **where)
        des = strong_ppa({f"{top}.v": code}, top, **where)
    except PdkMissing as e:
        return {"ratio": None, "holds": None, "why": str(e)}
    got = compare(ref, des)
    if got["ratio"] is None:
        return {"holds": None, **got, "why": f"not measured: {got['why']}"}
    return {**got, "holds": got["ratio"] > floor, "noise_floor": floor, "pdk": job.pdk,
            "seconds": round(sum(g.get("seconds", 0) for r in (ref, des) for g in r["scripts"].values()
                                 if not g.get("cached")), 1),
            "ref_by_script": {n: g.get("ppa") for n, g in ref["scripts"].items()},
            "by_script": {n: g.get("ppa") for n, g in des["scripts"].items()}}


def cached_check(out: Path, job: FlowJob, ref_src: dict, top: str, code: str, floor: float = 1.0) -> dict:
    """check(), kept in <run>/strong_synth.json for this code, PDK and floor (a resumed run does not redo it)."""
    return kept(out / "strong_synth.json", key_of(job.pdk, floor, code), lambda: check(job, ref_src, top, code, floor))


def describe(c: dict | None) -> str:
    """The last words' clause: holds or not, the ratio, each design's best PPA and the script that gave it."""
    if (c or {}).get("ratio") is None:
        return f"; under strong synthesis: {c.get('why', 'not measured')}" if c else ""
    how = (f"{c['ratio']:.3f}x (reference {c['ref_ppa']:.4g} um2*ns*W by the {c['ref_script']} script, best "
           f"{c['ppa']:.4g} by the {c['script']} script)")
    why_not = (f", not above the noise floor of {c['noise_floor']:.3f}x (a stronger script maps them alike: the "
               "default script's weakness, not a better design)")
    verdict = "holds" if c["holds"] else "does NOT hold"
    return f"; under strong synthesis it {verdict}: {how}{'' if c['holds'] else why_not}"
