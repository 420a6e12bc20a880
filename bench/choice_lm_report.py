"""bench/results/choice_lm.{md,json} from bench/choice_lm.py's replay (split out to keep that script short)."""
import json
import math
import os
import subprocess
from pathlib import Path

import pandas as pd

from bench.common import md_table, write_with_reading

OUT = Path(__file__).resolve().parent / "results"
LINES = (("lm-random", "trained LM, frozen - random"), ("ttt-lm", "TTT - trained frozen"),
         ("ttt-lm_explore", "TTT - frozen with the same exploration"), ("estimate-random", "estimate - random"),
         ("learned-random", "logistic ranker - random"), ("lm-estimate", "trained LM frozen - estimate"),
         ("lm-learned", "trained LM frozen - logistic ranker"), ("exhaustive-random", "exhaustive - random"),
         ("base-random", "untrained LM prior - random"), ("base_ttt-base", "TTT from the untrained prior - that prior"))


def _ci(x):
    return f"{x[0]:+.4f} [{x[1]:+.4f}, {x[2]:+.4f}]"


def write(per, st, names, seeds, train_designs, a, load0, wall, header, vinfo, stem="choice_lm"):
    import torch
    import transformers
    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True).stdout.strip()
    load1 = " ".join(f"{x:.2f}" for x in os.getloadavg())
    title = "LM chooser trained on verified outcomes, frozen and with test-time update (issue 57)"
    if stem.endswith("noest"):
        title += ": no estimates (the LM and the ranker read the option's words only)"
    body = header(title, {
        "machine load (1/5/15 min)": f"{load0} at start, {load1} at end",
        "wall time of this invocation": f"{wall:.0f} s",
        "torch / transformers": f"{torch.__version__} / {transformers.__version__}", "code": commit}) + "\n"
    n_opts = sum(len(m["options"]) for m in train_designs)
    body += (f"- Trained on {len(train_designs)} train-split designs ({n_opts} options): "
             f"{', '.join(sorted(m['design'] for m in train_designs))}. Replayed on {len(names)} held-out designs "
             f"of bench/results/choice_gen.json; seeds {seeds} (adapter init and exploration draws), "
             f"{a.epochs} epochs, LoRA on the top 2 blocks, exploration share 0.1.\n"
             + (f"- Epochs chosen on the train split alone: {vinfo['validation_designs']} set aside, validation "
                f"mean log best@1,3,5,10 by epoch {vinfo['validation_curve']}.\n" if vinfo else "")
             + "- Cells: mean over held-out designs of log(best@k A) - log(best@k B), each design's difference "
             "averaged over the seeds first; 95% bootstrap CI over designs. Random is the exact expectation.\n\n")
    rows = [{"comparison": lab, **{f"k={k}": _ci(st[f"{key}@{k}"]) for k in (1, 3, 5, 10, 30)}} for key, lab in LINES]
    body += md_table(pd.DataFrame(rows)) + "\n\n"
    body += "Random's geomean best: " + ", ".join(f"k={k} {st[f'random@{k}']}" for k in (1, 3, 5, 10, 30)) + "\n\n"
    body += "### Per held-out design (seed 0; best ratio at k=10 and k=30)\n\n"
    rows = []
    for n in names:
        p = per[seeds[0]][n]
        rows.append({"design": n, "options": p["options"], "pay": p["pay"], "best": round(p["best"], 3),
                     **{f"{c}@{k}": round(math.exp(p[f"{c}@{k}"]), 3) for k in (10, 30)
                        for c in ("random", "estimate", "learned", "lm", "ttt", "base", "base_ttt")}})
    body += md_table(pd.DataFrame(rows)) + "\n"
    write_with_reading(OUT / f"{stem}.md", body)
    (OUT / f"{stem}.json").write_text(json.dumps({"stats": st, "per_seed": {str(s): per[s] for s in seeds},
                                                    "held_out": names, "seeds": seeds, "epochs": a.epochs, **vinfo,
                                                    "load": [load0, load1], "code": commit}, indent=1) + "\n")
