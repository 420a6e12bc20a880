"""The reward of one candidate: a penalty by the first stage it fails, or log(PPA_ref / PPA) for a
design proven equivalent (an allowlist: nothing else earns PPA reward)."""
from __future__ import annotations

import math

from eda.report import Report, is_proven, is_unproven

from .config import UNKNOWN_STAGE_PENALTY, OptimizeConfig


def score(rep: Report | None, ref_ppa: float, cfg: OptimizeConfig) -> tuple[float, str, str | None, float | None]:
    """(reward, status, failed_stage, ppa_ratio) of one candidate; rep None = extraction failed.
    The PPA reward is granted by an allowlist: only a `proven` equivalence verdict earns it (with
    accept_unproven also bounded/cosim); a report without the stage, or with any other verdict, does not."""
    if rep is None:
        return cfg.penalties.get("extract", -1.0), "extract", "extract", None
    if rep.status != "pass":
        st = rep.failed_stage or "screen"
        return cfg.penalties.get(st, UNKNOWN_STAGE_PENALTY), rep.status, st, None
    eq = rep.equiv_status or ""
    if not is_proven(eq) and not (is_unproven(eq) and cfg.accept_unproven):
        # passes the flow, but nothing proved it equivalent: no PPA reward (a bounded check or a
        # co-simulation is not evidence an optimizer cannot learn to game; no verdict is none)
        return cfg.penalties.get("unproven", -0.45), "unproven", "equiv", None
    ppa = rep.ppa
    if ppa is None or not math.isfinite(ppa) or ppa <= 0:
        # STA found no constrained path (delay 0) or a number is missing: never a reward
        return cfg.penalties.get("sta", -0.3), "no-ppa", "sta", None
    r = math.log(ref_ppa / ppa)
    return min(cfg.reward_cap, max(cfg.valid_floor, r)), "pass", None, ref_ppa / ppa


def _metrics(rep: Report | None) -> dict:
    """The run store's metric columns of one report (what it has of them)."""
    if rep is None:
        return {}
    m = {"area": rep.area_um2, "delay": rep.delay_ns, "power": rep.power_w, "ppa": rep.ppa}
    return {k: v for k, v in m.items() if v is not None}


def _slim(rep: Report) -> dict:
    """A report without tool logs, for the pool and the prompt (logs can be long): where the typed report
    becomes the dict the run store keeps."""
    d = rep.to_dict()
    d["stages"] = {k: {kk: vv for kk, vv in v.items() if kk not in ("log", "seconds")}
                   for k, v in d["stages"].items()}
    d.pop("cached", None)
    d.pop("seconds", None)
    return d
