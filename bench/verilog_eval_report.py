"""Summarize a `rtl-agent regress --suite verilog-eval --policy reference` run folder into a markdown page:
pass count (upstream rule), simulators, each failure with its cause, PPA coverage and why PPA is
missing, per-category counts, tool versions, date and wall time.

    .venv/bin/python bench/verilog_eval_report.py RUN_DIR --wall-s 512 > bench/results/verilog_eval_reference.md
"""
import argparse
import collections
import datetime
import json
import platform
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from eda import tools  # noqa: E402


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("run", type=Path)
    ap.add_argument("--wall-s", type=float, default=None, help="wall time of the regress command")
    ap.add_argument("--command", default="rtl-agent regress --suite verilog-eval --policy reference --jobs 2")
    ap.add_argument("--wall-note", default="", help="how the wall time was measured")
    a = ap.parse_args()
    ds = [json.loads(p.read_text()) for p in sorted((a.run / "designs").glob("*.json"))]
    n = len(ds)
    passed = [d for d in ds if d["samples"] and d["samples"][0].get("func")]
    failed = [d for d in ds if d not in passed]
    sims = collections.Counter(d["reference"]["simulator"] or "none" for d in passed)
    ppa = [d for d in ds if d["reference"]["ppa"] is not None]
    zero = [d["design"] for d in ppa if not d["reference"]["ppa"]]
    no_ppa = collections.defaultdict(list)
    for d in ds:
        if d["reference"]["ppa"] is None:
            r = d["reference"]
            why = r["cause"] or f"failed at {r['failed_stage']}"
            if "empty netlist" in why:
                why = "wires/constants only: synthesis leaves no cells (PPA undefined)"
            elif "Latch inferred" in why or "latch" in why.lower():
                why = "Yosys 0.23 refuses the reference (latch inferred from always_comb / unmappable latch)"
            no_ppa[f"{r['failed_stage']}: {why}"].append(d["design"])
    cats = collections.defaultdict(lambda: [0, 0])
    for d in ds:
        cats[d["category"]][1] += 1
        cats[d["category"]][0] += d in passed
    v = tools.versions()
    out = ["# VerilogEval v2 spec-to-RTL references through the EDA core", "",
           f"- date: {datetime.date.today().isoformat()}",
           f"- machine: {platform.machine()}, shared 2 cores (other jobs running), Python {platform.python_version()}",
           *[f"- {k}: {val}" for k, val in v.items()],
           "- data: ../shared/benchmarks/verilog-eval-v2 (NVlabs/verilog-eval c498220, MIT), read in place",
           f"- command: `{a.command}`", "",
           "Upstream pass rule: compile with `iverilog -Wall -Winfloop -Wno-timescale -g2012 -s tb`, run with a 30 s "
           "limit, pass only when `Mismatches: 0 in N samples`, no error and no 30 s timeout (verdict preset `verilog-eval`; the testbench's own `TIMEOUT` line is its cycle guard, not a verdict). "
           "The reference (RefModule renamed TopModule) stands as the candidate; a reference that fails under "
           "Icarus 11 is retried on Verilator 5.48 (the regression's calibration fallback).", "",
           f"- references passing their own testbench: **{len(passed)}/{n}** "
           f"({', '.join(f'{k} {c}' for k, c in sims.most_common())})",
           f"- PPA (nangate45, 10 ns) reported for **{len(ppa)}/{n}**",
           f"- wall time: {a.wall_s:.0f} s for {n} problems ({n / a.wall_s * 60:.0f} problems/min; lint, sim, "
           "synth and STA of each reference, cold cache)" + (f"; {a.wall_note}" if a.wall_note else "")
           if a.wall_s else "- wall time: not measured", "",
           "## Failures", ""]
    for d in failed:
        r = d["reference"]
        fs = d["samples"][0].get("failed_stage") if d["samples"] else r["failed_stage"]
        out.append(f"- **{d['design']}**: failed at {fs}: {r['cause'][:300]}"
                   + "".join(f" — {n}" for n in d.get("notes", []) if n.startswith("upstream")))
    if not failed:
        out.append("none")
    out += ["", "## No PPA", ""]
    for why, names in sorted(no_ppa.items(), key=lambda x: -len(x[1])):
        out.append(f"- {len(names)} x {why}: {', '.join(names)}")
    if zero:
        out.append(f"- PPA 0 (no constrained timing path, delay 0 ns): {', '.join(zero)}")
    out += ["", "## Per category", "", "| category | pass | problems |", "|---|---|---|"]
    for c, (p, t) in sorted(cats.items()):
        out.append(f"| {c} | {p} | {t} |")
    out += ["", "Per-problem rows: `regress_verilog_eval_reference/results.csv`.", ""]
    print("\n".join(out))


if __name__ == "__main__":
    main()
