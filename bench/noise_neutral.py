"""The `neutral` noise perturbation (a zero folded into every top-level `+`, `|`, `^`; rtl_agent/noise.py)
measured on every design of the headroom map: how far does each reference's PPA move, does the noise floor
change, and which committed finds would no longer be above it?

    python bench/noise_neutral.py [--designs a,b]

Reads bench/results/headroom.json (the floors measured with rename, commute, reorder, all) and the
find_rate*.json results; writes bench/results/noise_neutral.{md,csv}.
"""
from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import pandas as pd  # noqa: E402

from bench.common import header, md_table, write_with_reading, write_rows  # noqa: E402

RESULTS = ROOT / "bench" / "results"


def neutral_ratio(name: str) -> dict:
    from designs import load_task
    from eda.flow import calibrate
    from rtl_agent.noise import noise_floor, perturbations
    t = load_task(name)
    src = t.reference_sources()
    if not any("neutral" in perturbations(x) for x in src.values()):
        return {"applies": False}
    job, ref = calibrate(t.flow_job("nangate45"), src, against_itself=True)
    if not (ref.ok and ref.ppa):
        return {"applies": True, "why": f"reference {ref.status} at {ref.failed_stage}"}
    nf = noise_floor(job, src, t.top, ref.ppa, kinds=("neutral",))
    if "neutral" not in nf.ratios:
        return {"applies": True, "why": nf.failed.get("neutral", "?")}
    return {"applies": True, "ratio": nf.ratios["neutral"]}


def finds() -> dict:
    """design -> [(report name, best ratio)] of the committed find-rate runs that found something."""
    out = {}
    for p in sorted(RESULTS.glob("find_rate*.json")):
        for r in json.loads(p.read_text()):
            if isinstance(r, dict) and r.get("found"):
                out.setdefault(r["task"], []).append((p.stem, r["best_ratio"]))
    return out


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--designs", default="", help="comma list (default: every design of the headroom map with a floor)")
    a = ap.parse_args(argv)
    rows_hr = json.loads((RESULTS / "headroom.json").read_text())["rows"]
    want = set(a.designs.split(",")) if a.designs else None
    got, fd, t0, start = [], finds(), time.time(), os.popen("uptime").read().strip()
    for r in rows_hr:
        if r.get("noise") is None or (want and r["design"] not in want):
            continue
        try:
            n = neutral_ratio(r["design"])
        except Exception as e:            # a design that no longer loads: listed, the bench goes on
            n = {"applies": None, "why": f"{type(e).__name__}: {e}"[:200]}
        old = r["noise"]
        ratio = n.get("ratio")
        new = max(old, ratio, 1 / ratio) if ratio else old
        hit = [f"{name} {b:.3f}" for name, b in fd.get(r["design"], []) if b <= new]
        got.append({"design": r["design"], "suite": r.get("suite", ""), "applies": n.get("applies"),
                    "neutral_ratio": round(ratio, 4) if ratio else "", "floor_before": round(old, 4), "floor_after": round(new, 4),
                    "finds_now_below": "; ".join(hit), "why": n.get("why", "")})
        print(f"[{time.time() - t0:5.0f}s] {got[-1]}", flush=True)
        write_rows(RESULTS / "noise_neutral.csv", got)
    df = pd.DataFrame(got)
    moved = df[df["floor_after"] > df["floor_before"]]
    lines = [header("Noise floor: the neutral perturbation (a zero folded into + | ^) on the headroom map's designs", {
        "command": "python bench/noise_neutral.py", "wall": f"{time.time() - t0:.0f} s",
        "load (uptime)": f"at the start: {start}; at the end: {os.popen('uptime').read().strip()}"}), "",
        f"- designs: {len(df)}; the perturbation changes the text of {int((df['applies'] == True).sum())}; "   # noqa: E712
        f"proven and measured on {int((df['neutral_ratio'] != '').sum())}",
        f"- floors raised by it: {len(moved)} ({', '.join(f'{d} {b:.3f} -> {x:.3f}' for d, b, x in zip(moved['design'], moved['floor_before'], moved['floor_after']))})",
        f"- committed finds (find_rate*.json best ratios) now at or below their design's floor: "
        f"{'; '.join(f'{d}: {h}' for d, h in zip(df['design'], df['finds_now_below']) if h) or 'none'}", "",
        md_table(df), ""]
    md = RESULTS / "noise_neutral.md"
    write_with_reading(md, "\n".join(lines))
    print("\n".join(lines[-6:-3]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
