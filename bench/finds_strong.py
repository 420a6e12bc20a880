"""A transform_search run's finds under strong synthesis (eda/synth_strong.py: each side at its best of the
default, deep and speed scripts): does each design's best proven gain hold? Reads bench/results/<name>.json and
the run folders' best.v; writes bench/results/<name>_strong.{csv,md}. --copy-to DIR also copies each counted find
to bench/results/DIR/<design>.v (what strong_synth.py reads for the library's finds; the retime finds are there).

    nice -n 10 .venv/bin/python -m bench.finds_strong --runs runs/bench/fsm58 --name fsm_rtllm_frozen
    nice -n 10 .venv/bin/python -m bench.finds_strong --runs runs/bench/retime_frozen --name retime_rtllm_frozen \
        --copy-to retime_finds
"""
from __future__ import annotations

import argparse
import json
import shutil
import time
from pathlib import Path

import pandas as pd

from bench.common import header, md_table, write_rows, write_with_reading

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "bench" / "results"
COLS = ("design", "ratio", "noise_floor", "above_noise", "strong_ratio", "holds_strong", "ref_script", "script",
        "chain", "seconds")


def main(argv=None) -> int:
    from bench.headroom import _job
    from designs import load_task
    from rtl_agent.jobs.optimize.strong import check
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--runs", required=True, help="transform_search's --runs folder")
    ap.add_argument("--name", required=True, help="transform_search's --out-name")
    ap.add_argument("--copy-to", default="", help="a folder under bench/results/ that gets each find's best.v")
    a = ap.parse_args(argv)
    if a.copy_to:
        (OUT / a.copy_to).mkdir(exist_ok=True)
    load0 = " ".join(open("/proc/loadavg").read().split()[:3])
    rows = []
    for r in json.loads((OUT / f"{a.name}.json").read_text()):
        best = ROOT / a.runs / f"{r['design']}-{r['mode']}-s{r['seed']}" / "best.v"
        row = {c: "" for c in COLS} | {"design": r["design"], "ratio": r.get("best_ratio"),
                                        "noise_floor": r.get("noise_floor"), "above_noise": r.get("above_noise"),
                                        "chain": r.get("chain", "")}
        if r.get("above_noise") and best.exists():
            t0 = time.monotonic()
            if a.copy_to:
                shutil.copyfile(best, OUT / a.copy_to / f"{r['design']}.v")
            task = load_task(r["design"])
            job, _ = _job(task, task.pdk)
            c = check(job, task.reference_sources(), task.top, best.read_text(), float(r["noise_floor"]))
            row.update(strong_ratio=round(c["ratio"], 4) if c.get("ratio") else c.get("why", "")[:80],
                       holds_strong=c.get("holds"), ref_script=c.get("ref_script", ""), script=c.get("script", ""),
                       seconds=round(time.monotonic() - t0, 1))
        rows.append(row)
        print(json.dumps(row), flush=True)
    write_rows(OUT / f"{a.name}_strong.csv", rows)
    meta = {"source": f"{a.name}.json (transform_search, run folders under {a.runs})",
            "load at start / end (shared 2-core machine)": f"{load0} / "
            + " ".join(open("/proc/loadavg").read().split()[:3])}
    body = header(f"{a.name}: the finds under strong synthesis", meta) + "\n" + \
        md_table(pd.DataFrame([{c: x[c] for c in COLS} for x in rows])) + "\n"
    write_with_reading(OUT / f"{a.name}_strong.md", body)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
