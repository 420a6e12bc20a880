"""Every committed find_rate run pooled per design: how many samples each adapter of the bundled model has
spent on it, how many were proven, and the best find; where there is none, an upper bound on the chance
that one sample is a find.

    .venv/bin/python bench/find_rate_pooled.py      -> bench/results/find_rate_pooled.{md,csv}

Reads bench/results/find_rate*.json (nothing is run). A find is judged as find_rate judges it today (the
map's current noise floor, ratio >= 1.1), so an older report's find below today's floor does not count.
The bound is the exact binomial one for zero finds in n samples (1 - 0.05^(1/n), 95%); the TTT and frozen
runs of one seed share their first step's samples, so n overstates the independent draws a little.
"""
from __future__ import annotations

import json
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
RESULTS = ROOT / "bench" / "results"


def adapter_of(md: Path) -> str:
    m = re.search(r"adapter (\S+?)[;,( ]", md.read_text()) if md.exists() else None
    return m.group(1) if m else "?"


def pool(ceil: dict, reports: list[Path]) -> list[dict]:
    from bench.find_rate import FIND
    from bench.headroom_map import counted
    rows = {}
    for p in reports:
        label = f"{p.stem} ({adapter_of(p.with_suffix('.md'))})"
        for r in json.loads(p.read_text()):
            t = r.get("task")
            if t not in ceil:
                continue
            c, floor, suite = ceil[t]
            row = rows.setdefault(t, {"design": t, "suite": suite, "ceiling": round(c, 3), "noise_floor": round(floor, 3),
                                      "samples": 0, "valid": 0, "runs": 0, "found_runs": 0, "best": 1.0,
                                      "reports": set()})
            best = counted(r.get("best_ratio") or 1.0, floor)
            row["samples"] += r.get("samples") or 0
            row["valid"] += r.get("valid") or 0
            row["runs"] += 1
            row["found_runs"] += best >= FIND
            row["best"] = max(row["best"], best)
            row["reports"].add(label)
    out = []
    for row in rows.values():
        n = row["samples"]
        row["best"] = round(row["best"], 3)
        row["ub95_per_sample"] = round(1 - 0.05 ** (1 / n), 4) if n and not row["found_runs"] else ""
        row["reports"] = len(row["reports"])
        out.append(row)
    return sorted(out, key=lambda r: (r["suite"] != "project", bool(r["found_runs"]), r["design"]))


def main() -> int:
    import pandas as pd
    from bench.common import header, md_table, write_rows, write_with_reading
    from bench.find_rate import ceilings
    reports = sorted(RESULTS.glob("find_rate*.json"))
    reports = [p for p in reports if p.stem != "find_rate_pooled"]
    rows = pool(ceilings(), reports)
    write_rows(RESULTS / "find_rate_pooled.csv", rows)
    none = [r for r in rows if not r["found_runs"]]
    lines = [header("find_rate pooled: every committed run of the bundled model, per design"), "",
             "Reports: " + ", ".join(f"{p.stem} ({adapter_of(p.with_suffix('.md'))})" for p in reports) + ".", "",
             "A find: proven, ratio >= 1.1 and above the design's current noise floor. ub95_per_sample: with no "
             "find in `samples` samples, the chance that one sample is a find is below this (95%).", "",
             f"- designs: {len(rows)}; with a find in some run: {len(rows) - len(none)}; without: {len(none)} "
             f"({sum(r['samples'] for r in none)} samples spent on them, {sum(r['valid'] for r in none)} proven)", "",
             md_table(pd.DataFrame(rows))]
    write_with_reading(RESULTS / "find_rate_pooled.md", "\n".join(lines))
    print("\n".join(lines))
    return 0


if __name__ == "__main__":
    sys.exit(main())
