"""Headroom of one-line edits: can any single-statement edit of the optimize job's kind beat the reference?

For each task, every statement the job may target (`edits.targets`) is rewritten by every rule of
`rtl_agent/rewrites.py`, and every sized state code (`parameter`/`localparam NAME = W'...`) is set to each value
its width allows that no other code uses. Each variant goes through the job's own flow (lint, simulation,
equivalence, synthesis, STA). No model: this bounds what the one-line action space can find, whatever writes it.

    python bench/one_line_headroom.py [--tasks a,b] [--max-per-task 60]
"""
from __future__ import annotations

import argparse
import csv
import re
import sys
import tempfile
import time
from datetime import date
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.optimize_actions import PROJECT, RTLLM  # noqa: E402

HELD_OUT = ["adder_8bit", "alu", "barrel_shifter", "edge_detect", "freq_divbyeven", "fsm", "pulse_detect",
            "sequence_detector", "up_down_counter", "width_8to16"]
_CODE = re.compile(r"(\s*(?:localparam|parameter)\s+(?:\[[^\]]*\]\s*)?\w+\s*=\s*)(\d+)'([bdh])([0-9a-fA-F_]+)(.*)$")


def variants(code: str) -> list[tuple[str, int, str]]:
    """(kind, line index, new line) for every rule rewrite and every unused state code."""
    from rtl_agent.edits import targets
    from rtl_agent.rewrites import all_rewrites
    lines, out = code.splitlines(), []
    for i in targets(code):
        out += [(name, i, new) for name, new in all_rewrites(lines[i]).items()]
    codes = [(i, m) for i, line in enumerate(lines) for m in [_CODE.match(line)] if m]
    used = {int(m.group(4).replace("_", ""), {"b": 2, "d": 10, "h": 16}[m.group(3)]) for _, m in codes}
    for i, m in codes:
        w = int(m.group(2))
        out += [("state_code", i, f"{m.group(1)}{w}'d{v}{m.group(5)}") for v in range(2 ** min(w, 6)) if v not in used]
    return out


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--tasks", default=",".join(PROJECT + RTLLM + HELD_OUT))
    ap.add_argument("--max-per-task", type=int, default=60, help="variants evaluated per task, at most")
    ap.add_argument("--name", default="one_line_headroom")
    a = ap.parse_args(argv)
    from rtl_agent.jobs.optimize import OptimizeConfig, OptimizeEnv, _join
    from tqdm import tqdm
    rows, t0 = [], time.time()
    for task in a.tasks.split(","):
        env = OptimizeEnv(OptimizeConfig(task=task), Path(tempfile.mkdtemp()))
        code = _join(env.ref_src)
        ref = env._eval(code)
        lines = code.splitlines()
        for kind, i, new in tqdm(variants(code)[:a.max_per_task], desc=task, leave=False):
            rep = env._eval("\n".join(lines[:i] + [new] + lines[i + 1:]) + "\n")
            ok = rep.ok and rep.ppa and ref.ppa
            rows.append({"task": task, "kind": kind, "line": i + 1, "new": new.strip(), "status": rep.status,
                         "ratio": round(ref.ppa / rep.ppa, 4) if ok else ""})
    out = ROOT / "bench" / "results" / a.name
    with open(out.with_suffix(".csv"), "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=["task", "kind", "line", "new", "status", "ratio"])
        w.writeheader()
        w.writerows(rows)
    md = [f"# Headroom of one-line edits ({date.today().isoformat()})", "",
          __doc__.split("\n\n")[1].replace("\n", " "), "",
          "ratio = PPA_ref / PPA_variant (above 1.0 is better than the reference). "
          f"At most {a.max_per_task} variants per task. Wall time {(time.time() - t0) / 60:.1f} min on 2 CPU cores.", "",
          "| task | variants | pass | best ratio | worst ratio | better than ref |", "|---|---|---|---|---|---|"]
    for task in a.tasks.split(","):
        rs = [r for r in rows if r["task"] == task]
        ok = [r["ratio"] for r in rs if r["ratio"] != ""]
        md.append(f"| {task} | {len(rs)} | {len(ok)} | {max(ok) if ok else '-'} | {min(ok) if ok else '-'} | "
                  f"{sum(x > 1.0 for x in ok)} |")
    by = {}
    for r in rows:
        s = by.setdefault(r["kind"], [0, 0, 0])
        s[0] += 1
        s[1] += r["ratio"] != ""
        s[2] += r["ratio"] != "" and r["ratio"] > 1.0
    md += ["", "| kind | variants | pass | better than ref |", "|---|---|---|---|"]
    md += [f"| {k} | {v[0]} | {v[1]} | {v[2]} |" for k, v in by.items()]
    out.with_suffix(".md").write_text("\n".join(md) + "\n")
    print(f"wrote {out}.{{csv,md}}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
