"""Cover's formal phase on the corpus modules of real_designs_jobs.md (issue 60, item 1): points decided
before (the committed table, same settings and seeds) and after (this checkout), undecided share, why, time.

    flock /tmp/rtl-heavy.lock nice -n 10 .venv/bin/python bench/cover_formal_real.py [--only a,b] [--wall-s 900]

Each design runs `rtl-agent cover FILES --top T [-P ...] --budget 16 --random-budget 16 --patience 16` (the
real_designs settings: random and formal, no model) in runs/bench/cover_formal_real/<design> (resumed: the
random simulations are kept, the formal phase reruns when eda/reach*.py changed). Writes
bench/results/cover_formal_real.{md,csv}; --report-only rereads the run folders.
"""
import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pandas as pd

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.common import header, md_table, write_rows, write_with_reading  # noqa: E402
from bench.real_designs import COVER_NO_MODEL, DESIGNS, job_args  # noqa: E402

OUT = ROOT / "bench" / "results"
RUNS = ROOT / "runs" / "bench" / "cover_formal_real"
# formal: witnessed, proven unreachable, undecided, from bench/results/real_designs_jobs.md (2026-12-07, same
# settings; the random phase is seeded, so the open points are the same)
BEFORE = {"axis_register": (0, 33, 6), "axis_fifo DEPTH=16": (0, 125, 88), "axis_cobs_encode": (0, 338, 190),
          "axis_switch": (0, 152, 278), "axis_arb_mux": (0, 76, 31), "axis_adapter 64->8": (0, 33, 9),
          "axis_srl_fifo": (0, 33, 6), "axis_rate_limit": (0, 33, 7), "priority_encoder": (0, 2, 0),
          "axil_register": (0, 0, 0), "axi_register": (0, 20, 5), "axil_ram ADDR_WIDTH=6": (0, 72, 4),
          "picorv32_pcpi_mul": (15, 198, 818), "picorv32_pcpi_div": (91, 0, 7)}
ORDER = sorted(BEFORE, key=lambda d: -BEFORE[d][2]) + ["picorv32"]


def folder(label: str) -> Path:
    return RUNS / "".join(c if c.isalnum() else "_" for c in label)


def run_one(label, wall_s) -> dict:
    d = next(x for x in DESIGNS if x[0] == label)
    out = folder(label)
    cmd = [str(ROOT / ".venv" / "bin" / "rtl-agent"), "cover", *job_args(*d[1:]), *COVER_NO_MODEL, "--out", str(out)]
    if (out / "run.sqlite").exists():
        cmd.append("--resume")
    t0 = time.monotonic()
    try:
        r = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, timeout=wall_s)
        tail = (r.stdout + r.stderr).strip().splitlines()[-1:] or [""]
        rc = r.returncode
    except subprocess.TimeoutExpired:
        rc, tail = "timeout", [f"stopped after {wall_s} s"]
    row = read(label)
    row["wall_s"] = round(time.monotonic() - t0, 1)
    if not row.get("points"):
        row["note"] = f"rc {rc}: {tail[0][:160]}"
    return row


def read(label) -> dict:
    out = folder(label)
    b = BEFORE.get(label, ("", "", ""))
    row = {"design": label, "before_witness": b[0], "before_unreachable": b[1], "before_undecided": b[2]}
    try:
        s = json.loads((out / "summary.json").read_text())
        f = json.loads((out / "formal.json").read_text())
    except (OSError, ValueError):
        return {**row, "note": "not run to the end (no formal.json)"}
    c = f["counts"]
    total = sum(v["total"] for v in s["coverage"].values())
    row.update(points=total, open=f["open"], witness=c["witness"], witness_runs=c.get("witness_runs", ""),
               unreachable=c["unreachable"], undecided=c["undecided"],
               # proven only on the zero-start model: unreachable in simulation (eda.reach_zinit)
               zero_start=sum(str(v.get("method", "")).endswith("zero-start") for v in f["verdicts"].values()),
               undecided_pct=round(100 * c["undecided"] / total, 2) if total else 0.0,
               decided_all=c["undecided"] == 0,
               why="; ".join(f"{k} {v}" for k, v in sorted(c.get("undecided_why", {}).items())),
               formal_s=f["seconds"], decide_s=f["decide_s"], reachable_pct=s.get("reachable_pct"),
               all_pct=s.get("total_pct"), note="; ".join(f.get("notes", []))[:200])
    return row


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--only", default="", help="comma-separated design labels (default: all, most undecided first)")
    ap.add_argument("--wall-s", type=int, default=900)
    ap.add_argument("--report-only", action="store_true")
    a = ap.parse_args()
    names = [x.strip() for x in a.only.split(",") if x.strip()] or ORDER
    load0 = " ".join(f"{x:.2f}" for x in os.getloadavg())
    rows, t0 = [], time.monotonic()
    try:        # the wall times of earlier runs (a report or a partial rerun keeps them)
        walls = {r["design"]: r["wall_s"] for r in pd.read_csv(OUT / "cover_formal_real.csv").to_dict("records")}
    except (OSError, KeyError, ValueError):
        walls = {}
    for n in names:
        row = {**read(n), "wall_s": walls.get(n, "")} if a.report_only else run_one(n, a.wall_s)
        rows.append(row)
        print(json.dumps(row), flush=True)
        write(rows, load0)
    if a.only:          # a partial rerun: the other designs' rows from their run folders, so the report stays whole
        done = {r["design"]: r for r in rows}
        rows = [done.get(n) or {**read(n), "wall_s": walls.get(n, "")} for n in ORDER
                if n in done or (folder(n) / "formal.json").exists()]
    write(rows, load0, wall=None if a.report_only else time.monotonic() - t0, reread=a.report_only)


def write(rows, load0, wall=None, reread=False):
    cols = ["design", "points", "open", "before_witness", "witness", "before_unreachable", "unreachable",
            "zero_start", "before_undecided", "undecided", "undecided_pct", "why", "formal_s", "wall_s", "note"]
    full = [{k: r.get(k, "") for k in cols + ["witness_runs", "decide_s", "reachable_pct", "all_pct"]} for r in rows]
    write_rows(OUT / "cover_formal_real.csv", full)
    load1 = " ".join(f"{x:.2f}" for x in os.getloadavg())
    body = [header("Cover's formal phase on real modules (issue 60, item 1)", {
        "machine load (1/5/15 min)": "see the reading (report reread from the run folders)" if reread else
                                     f"{load0} at start, {load1} at end (2 cores, shared with other benchmarks)",
        "wall time": "sum of wall_s" if reread else f"{wall:.0f} s" if wall else "(running)"}),
        "`rtl-agent cover FILES --top T [-P ...] --budget 16 --random-budget 16 --patience 16` (random and formal, "
        "no model; formal budget 60 s, 8 s a point: the defaults). before: bench/results/real_designs_jobs.md "
        "(same settings and seeds). undecided_pct: undecided points over all points of the design. zero_start: of "
        "the unreachable, those proven only from the all-zero start Verilator simulates (a trace exists from "
        "other power-up values: eda.reach_zinit).", ""]
    body.append(md_table(pd.DataFrame([{k: r.get(k, "") for k in cols} for r in rows], columns=cols)))
    write_with_reading(OUT / "cover_formal_real.md", "\n".join(body) + "\n")


if __name__ == "__main__":
    main()
