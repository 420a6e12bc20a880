"""Fit the chooser (rtl_agent/jobs/optimize/ranker.py) on the training split's measured options and ship it.

Reads bench/results/choice_replay.json (bench/choice_replay.py: every option of a corpus module through the
full flow), keeps the designs of the choice benchmark's training split only (never a held-out design, never
RTLLM or VerilogEval), fits the ranker and writes rtl_agent/adapters/chooser/weights.json with what it was
trained on.

    .venv/bin/python bench/choice_train.py
"""
import json
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.choice_replay import OUT, training_rows  # noqa: E402
from rtl_agent.jobs.optimize.ranker import WEIGHTS, Ranker  # noqa: E402


def main():
    measured = json.loads((OUT / "choice_replay.json").read_text())
    rows = training_rows(measured)
    if not rows:
        sys.exit("choice_train: no training-split design in bench/results/choice_replay.json; run "
                 "bench/choice_replay.py --split train first")
    designs = sorted(m["design"] for m in measured if m.get("split") == "train")
    WEIGHTS.parent.mkdir(parents=True, exist_ok=True)
    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True).stdout.strip()
    Ranker.fit(rows).save(WEIGHTS, {"trained_on": designs, "options": len(rows),
                                    "counted": sum(r[3] for r in rows), "code": commit})
    print(f"choice_train: {len(rows)} options of {len(designs)} training designs "
          f"({sum(r[3] for r in rows)} counted) -> {WEIGHTS}")


if __name__ == "__main__":
    main()
