"""How the headroom map counts (shared by bench/headroom.py, which measures, and bench/headroom_report.py, which
writes the report, and read by find_rate and pnr_rtllm): where the rewrites are, a design's best proven rewrite,
its noise floor, and when a gain counts."""
from __future__ import annotations

import math
from pathlib import Path

from designs.evalsets import HEADROOM  # noqa: F401 - the rewrites' folder: designs says where evaluation sets are

ROOT = Path(__file__).resolve().parent.parent

NEUTRAL = ROOT / "bench" / "results" / "noise_neutral.csv"
PDKS = ("nangate45", "sky130hd")


def best(row: dict, pdk: str) -> tuple[float, str, str]:
    """(best proven ratio (1.0 when none beats the reference), its kind, its file)."""
    b = (1.0, "", "")
    for e in row["rewrites"]:
        r = e.get(f"{pdk}_ratio")
        if r and r > b[0]:
            b = (r, e["kind"], e["file"])
    return b


def floors(rows: list) -> dict:
    """design -> its noise floor: the map's four perturbation kinds (rename, commute, reorder, all; the
    json's `noise`), raised by the fifth, a zero folded into every top-level operator, where
    bench/noise_neutral.py measured it. find_rate and the map's report both judge by this one floor."""
    five = {}
    if NEUTRAL.exists():
        import csv
        with NEUTRAL.open() as f:
            five = {r["design"]: float(r["floor_after"]) for r in csv.DictReader(f)}
    return {r["design"]: max(r.get("noise", 1.0) or 1.0, five.get(r["design"], 1.0)) for r in rows}


def above(ratio: float, floor: float) -> bool:
    """ratio is above the noise floor, compared at the 4 digits noise_neutral.csv keeps: a design that is
    the floor's own netlist (1.2580009 against a floor of 1.258) is not above it."""
    return round(ratio, 4) > floor


def counted(ratio: float, floor: float) -> float:
    """A design's headroom as the map counts it: its ratio when above its noise floor, else 1.0."""
    return ratio if above(ratio, floor) else 1.0


def geomean(xs) -> float:
    xs = [x for x in xs if x and x > 0]
    return math.exp(sum(math.log(x) for x in xs) / len(xs)) if xs else float("nan")
