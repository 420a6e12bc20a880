"""Do the improvement pairs the improve adapters were trained on hold on the other PDK?

Every pair (worse design -> better design, proven equivalent, PPA ratio >= 1.10 on Nangate45) of an SFT data
file is synthesized again, both designs, on Nangate45 and Sky130 (synthesis and STA only: equivalence does not
depend on the library and was proven when the pair was built). A pair whose gain is below 1.10 on Sky130
teaches a gain one library's mapping gives (like mult8's `a * b`, 1.587x on Nangate45 and 0.988x on
Sky130), not a better design.

    python bench/improve_pairs_pdk.py [--data runs/sft/improve-r2/data.jsonl] [--name improve_pairs_pdk]

The improve-full examples are read (one per (worse, better) pair; the diff and line examples repeat them).
Writes bench/results/<name>.{md,csv}.
"""
from __future__ import annotations

import argparse
import json
import os
import re
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import pandas as pd  # noqa: E402

from bench.common import header, md_table, write_with_reading, write_rows  # noqa: E402

RESULTS = ROOT / "bench" / "results"
MIN = 1.10
PDKS = ("nangate45", "sky130hd")


def pair_of(ex: dict) -> tuple[str, str, str] | None:
    """(top, worse, better) of an improve-full example: the prompt's current design, the prefilled header
    plus the answer."""
    user = next(m["content"] for m in ex["messages"] if m["role"] == "user")
    top = re.search(r"Module `(\w+)`", user)
    cur = re.search(r"Current design:\n```verilog\n(.*?)```", user, re.S)
    if not (top and cur):
        return None
    better = ex["prefill"].split("```verilog\n", 1)[-1] + ex["answer"].rsplit("```", 1)[0]
    return top.group(1), cur.group(1), better


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--data", default="runs/sft/improve-r2/data.jsonl", help="an improve SFT data file")
    ap.add_argument("--name", default="improve_pairs_pdk")
    a = ap.parse_args(argv)
    path = Path(a.data)
    if not path.exists():
        raise SystemExit(f"{path} is missing: it is written by `rtl-agent sft --kind improve --out DIR` (DIR/data.jsonl)")
    exs = [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
    exs = [e for e in exs if e["kind"] == "improve-full"]
    from rtl_agent.jobs.sft.improve import other_pdk_ratio
    t0, start, rows = time.time(), os.popen("uptime").read().strip(), []
    for i, ex in enumerate(exs):
        got = pair_of(ex)
        if not got:
            continue
        top, worse, better = got
        row = {"source": ex.get("source", ""), "top": top}
        for pdk in PDKS:           # the flow's cache serves a worse design shared by several pairs
            r = other_pdk_ratio(top, worse, better, pdk, "auto", None)
            row[pdk] = round(r, 4) if r else None
        rows.append(row)
        print(f"[{i + 1}/{len(exs)} {time.time() - t0:5.0f}s] {row}", flush=True)
    df = pd.DataFrame(rows)
    df["holds_sky130"] = df["sky130hd"].fillna(0) >= MIN
    df["family"] = df["source"].str.split(":").str[-1]
    df["origin"] = df["source"].str.split(":").str[0]
    write_rows(RESULTS / f"{a.name}.csv", df.to_dict("records"))
    fam = df.groupby(["origin", "family"]).agg(pairs=("top", "size"), n45_min=("nangate45", "min"),
                                               sky130_median=("sky130hd", "median"),
                                               holds_on_sky130=("holds_sky130", "sum")).reset_index()
    n45_ok = df["nangate45"].fillna(0) >= MIN
    lines = [header("Improvement pairs on the other PDK: do the improve adapters' training gains hold on Sky130?", {
        "command": f"python bench/improve_pairs_pdk.py --data {a.data}",
        "load (uptime)": f"at the start: {start}; at the end: {os.popen('uptime').read().strip()}",
        "wall": f"{time.time() - t0:.0f} s"}), "",
        f"Pairs (improve-full examples of `{a.data}`): {len(df)}. Each design synthesized with Yosys 0.70 + ABC and "
        f"timed with OpenSTA on both libraries; ratio = PPA_worse / PPA_better.", "",
        f"- pairs still >= {MIN}x on Nangate45 in this run: {int(n45_ok.sum())}/{len(df)}",
        f"- pairs >= {MIN}x on Sky130 too: {int((n45_ok & df['holds_sky130']).sum())}/{len(df)}",
        f"- pairs at most 1.0x on Sky130 (no gain at all there): {int((df['sky130hd'].fillna(0) <= 1.0).sum())}",
        f"- by origin: " + "; ".join(f"{o}: {int(g['holds_sky130'].sum())}/{len(g)} hold" for o, g in df.groupby("origin")),
        "", "## Per family", "", md_table(fam), ""]
    md = RESULTS / f"{a.name}.md"
    write_with_reading(md, "\n".join(lines))
    print("\n".join(lines[-8:]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
