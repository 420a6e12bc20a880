"""The `mux_share` kind on the designs of its family (issue #58 item 1): the library at defaults before the kind
(bench/results/transform_rtllm_frozen.csv for RTLLM; a run with every other kind for a project task) and with
it (bench/results/mux_share_rtllm.csv, written by bench/transform_search.py --out-name mux_share_rtllm), each
best find re-synthesized under the strong scripts (rtl_agent/jobs/optimize/strong.py).

    python -m bench.transform_search --designs mux_alu,alu,fixed_point_adder,square_wave,freq_div \\
        --modes frozen --steps 5 --out-name mux_share_rtllm --runs RUNS
    .venv/bin/rtl-agent optimize mux_alu --out RUNS/mux_alu-before --no-train --actions transform \\
        --transforms <every kind but mux_share> --steps 5 --no-cross-pdk --no-pnr --quiet
    python -m bench.mux_share_table --runs RUNS [--no-strong]

Writes bench/results/mux_share_table.{csv,md}; the strong checks are kept in RUNS/<run>/strong_synth.json.
"""
from __future__ import annotations

import argparse
import csv
import json
import os
from pathlib import Path

from bench.common import header, md_table, write_rows, write_with_reading

ROOT = Path(__file__).resolve().parent.parent
RES = ROOT / "bench" / "results"


def _rows(path: Path, mode: str = "frozen") -> dict:
    if not path.exists():
        return {}
    with path.open() as f:
        return {r["design"]: r for r in csv.DictReader(f) if r["mode"] == mode}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", required=True, help="the run folders' parent given to transform_search --runs")
    ap.add_argument("--no-strong", action="store_true", help="skip the strong-synthesis check")
    args = ap.parse_args(argv)
    from bench.transform_search import read_run
    from designs import load_task
    from rtl_agent.jobs.optimize.strong import cached_check
    runs = Path(args.runs)
    before, after = _rows(RES / "transform_rtllm_frozen.csv"), _rows(RES / "mux_share_rtllm.csv")
    with (RES / "headroom.csv").open() as f:
        hands = {r["design"]: r for r in csv.DictReader(f)}
    out = []
    for design, a in after.items():
        b = before.get(design)
        if b is None and (runs / f"{design}-before").exists():
            b = read_run(runs / f"{design}-before", 10)
        run = runs / f"{design}-frozen-s0"
        best = json.loads((run / "best.json").read_text()) if (run / "best.json").exists() else {}
        ref_ppa = next((r["ppa"] for r in csv.DictReader((run / "candidates.csv").open())
                        if r["status"] == "reference"), "") if (run / "candidates.csv").exists() else ""
        strong = {}
        task = load_task(design)
        if not args.no_strong and a.get("above_noise") == "True" and (run / "best.v").exists():
            strong = cached_check(run, task.flow_job(task.pdk), task.reference_sources(), task.top,
                                  (run / "best.v").read_text(), float(a["noise_floor"]))
        hand = hands.get(design, {}).get("best_n45", "")
        out.append({"design": design, "reference_ppa": ref_ppa, "hand": hand,
                    "before": (b or {}).get("best_ratio", ""), "before_chain": (b or {}).get("chain", ""),
                    "with_mux_share": a["best_ratio"], "proven": best.get("proof", ""),
                    "noise_floor": a["noise_floor"], "above_noise": a["above_noise"],
                    "strong_ratio": round(strong["ratio"], 4) if strong.get("ratio") else "",
                    "holds_strong": strong.get("holds", ""), "evaluations": a["evaluations"],
                    "chain": a["chain"]})
    write_rows(RES / "mux_share_table.csv", out)
    load = " ".join(f"{x:.2f}" for x in os.getloadavg())
    body = header("mux_share: sharing wide units across exclusive arms, library at defaults before and after",
                  {"runs": "frozen policy, 5 steps, seed 0, --actions transform, Nangate45", "load now": load})
    import pandas as pd
    body += "\n" + md_table(pd.DataFrame(out)) + "\n"
    write_with_reading(RES / "mux_share_table.md", body)
    print(body)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
