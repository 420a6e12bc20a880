"""Does a find hold after place and route? Every ratio in the loop is post-synthesis (no wires); at the end of
a run the best design and the reference are placed and routed with OpenROAD (the pnr stage) on the run's PDK,
and their post-route PPA (placed cell area x post-route delay x post-route power) compared, like the other-PDK
check (cross.py). Not in the inner loop: ~30 s a design. A missing OpenROAD is a reported skip.

    check(job, ref_src, top, code)   # {"ratio": 1.41, "synth_ratio": 1.59, "ref": {...}, "design": {...}}
"""
from __future__ import annotations

import hashlib
import json
from pathlib import Path

from eda.flow import FlowJob, evaluate
from eda.fsutil import atomic_write
from eda.pnr import Routed
from eda.tools import OPENROAD, ToolMissing
from rtl_agent.noise import top_files

STAGES = ("screen", "lint", "synth", "sta", "pnr")   # proven already: the check adds only physical design


def _row(r: Routed) -> dict:
    """What pnr.json keeps of a routed design (its keys are read by the report and the find line)."""
    return {"drc": r.drc, "wirelength_um": r.wirelength_um, "vias": r.vias, "delay_ns": r.delay_ns,
            "power_w": r.power_w, "cell_area_um2": r.area_um2, "core_area_um2": r.core_area_um2, "def": r.def_path}


def check(job: FlowJob, ref_src: dict, top: str, code: str, keep: Path | None = None) -> dict:
    """Post-route ratio (reference / design) beside the post-synthesis one; never raises for a tool or
    design that fails: says why."""
    try:
        OPENROAD.paths()
    except ToolMissing as e:
        return {"ratio": None, "why": f"skipped: {e}"}
    j = job.replace(stages=STAGES)
    out = {}
    for who, src in (("ref", top_files(ref_src, top)), ("design", {f"{top}.v": code})):
        rep = evaluate(j.replace(keep=str(keep / who) if keep else None), src)
        if not rep.ok:
            st = rep.stages.get(rep.failed_stage)
            why = st.diagnostics[0].message if st and st.diagnostics else rep.status
            return {"ratio": None, "why": f"the {'reference' if who == 'ref' else 'design'} at "
                                          f"{rep.failed_stage}: {why}"}
        r = Routed.of(rep)
        out[who] = {"ppa": r.ppa, "synth_ppa": rep.ppa, **_row(r)}
    r, d = out["ref"], out["design"]
    return {"ratio": r["ppa"] / d["ppa"], "synth_ratio": r["synth_ppa"] / d["synth_ppa"], "pdk": job.pdk, **out}


def cached_check(out: Path, job: FlowJob, ref_src: dict, top: str, code: str) -> dict:
    """check(), kept in <run>/pnr.json for this code and PDK (a resumed run does not redo it); the routed DEFs
    in <run>/pnr/ref and <run>/pnr/design."""
    key = hashlib.sha256(f"{job.pdk}\n{code}".encode()).hexdigest()[:16]
    f = out / "pnr.json"
    try:
        got = json.loads(f.read_text())
        if got.get("key") == key and got.get("ratio") is not None:
            return got
    except (OSError, ValueError):
        pass
    got = {"key": key, **check(job, ref_src, top, code, keep=out / "pnr")}
    if got.get("ratio") is not None:
        try:
            from .layout import draw
            draw([(f"reference ({got['pdk']}, routed)", Path(got["ref"]["def"])),
                  (f"find: {got['ratio']:.2f}x after routing", Path(got["design"]["def"]))], out / "layout.png")
        except (OSError, ValueError, AttributeError) as e:     # a picture is never worth failing the run
            got["layout_error"] = str(e)[:200]
    atomic_write(f, json.dumps(got, indent=2))
    return got


def describe(c: dict | None) -> str:
    if not c:
        return ""
    if c.get("ratio") is None:
        return f"; after place and route: not measured ({c.get('why', '?')})"
    return (f"; {c['synth_ratio']:.2f}x after synthesis, {c['ratio']:.2f}x after place and route on {c['pdk']} "
            f"(OpenROAD, 0 DRC; routed wirelength {c['design']['wirelength_um']:.0f} um vs the reference's "
            f"{c['ref']['wirelength_um']:.0f} um)")
