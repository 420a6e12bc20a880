"""Fit the chooser (rtl_agent/jobs/optimize/ranker.py) on the training split's measured options and ship it.

Reads bench/results/choice_replay.json (bench/choice_replay.py: every option of a corpus module through the
full flow), keeps the designs of the choice benchmark's training split only (never a held-out design, never
RTLLM or VerilogEval), fits the ranker and writes rtl_agent/adapters/chooser/weights.json with what it was
trained on.

With --generated, the ranker is fitted on the train split of the generated designs instead
(bench/results/choice_gen.json, bench/choice_gen_bench.py) and written to --out (default
bench/results/choice_gen_weights.json, not shipped: ship by --out rtl_agent/adapters/chooser/weights.json
only where bench/results/choice_gen.md shows it better on held-out and no worse on the corpus).

    .venv/bin/python bench/choice_train.py [--generated [--out PATH]]
"""
import argparse
import json
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.choice_replay import OUT, training_rows  # noqa: E402
from rtl_agent.jobs.optimize.ranker import WEIGHTS, Ranker  # noqa: E402


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--generated", action="store_true", help="fit on the generated designs' train split")
    ap.add_argument("--out", default=None, help="where to write the weights")
    a = ap.parse_args()
    src = OUT / ("choice_gen.json" if a.generated else "choice_replay.json")
    measured = json.loads(src.read_text())
    if a.generated:
        measured = measured["designs"]
    out = Path(a.out) if a.out else (OUT / "choice_gen_weights.json" if a.generated else WEIGHTS)
    rows = training_rows(measured)
    if not rows:
        sys.exit(f"choice_train: no training-split design in {src}; measure the train split first")
    designs = sorted(m["design"] for m in measured if m.get("split") == "train")
    out.parent.mkdir(parents=True, exist_ok=True)
    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True).stdout.strip()
    Ranker.fit(rows).save(out, {"trained_on": designs, "source": src.name, "options": len(rows),
                                "counted": sum(r[3] for r in rows), "code": commit})
    print(f"choice_train: {len(rows)} options of {len(designs)} training designs "
          f"({sum(r[3] for r in rows)} counted) -> {out}")


if __name__ == "__main__":
    main()
