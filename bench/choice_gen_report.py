"""The report of bench/choice_gen_bench.py: bench/results/choice_gen.{md,csv,json} from the measured designs.

Per design: option counts (one deep, by kind; chains two deep where counted), how many proved and paid, and
what each chooser drew first; per split seed: the paired 95% CI of log(best@k chooser) - log(best@k random) over
held-out designs; the ranker fitted on generated designs, scored on the corpus designs choice_replay measured.
"""
import json
import math
import os
from pathlib import Path

import pandas as pd

from bench.choice_gen_bench import CHOOSERS, KS, OUT, corpus_check, evaluate_split, resplit, shipped_on
from bench.choice_replay import gains
from bench.common import header, md_table, write_rows, write_with_reading


def drawn(m: dict, ranker) -> dict:
    """The first three options each chooser evaluates, with their counted ratio (what it drew)."""
    from rtl_agent.jobs.optimize.estimate import order as est_order
    v, opts = gains(m), m["options"]
    orders = {"library": list(range(len(v))), "estimate": est_order([r["estimate"] for r in opts]),
              "oracle": sorted(range(len(v)), key=lambda i: -v[i])}
    if ranker is not None:
        orders["learned"] = ranker.order([r["label"] for r in opts], [r["kind"] for r in opts],
                                         [r["estimate"] for r in opts])
    return {c: "; ".join(f"{opts[i]['label'][:48]} = {v[i]:.3f}" for i in o[:3]) for c, o in orders.items()}


def write(measured: list, load0: str, wall: float):
    if not measured:
        print("choice_gen_report: nothing measured yet")
        return
    fixed = {m["design"]: m["split"] for m in measured}
    n_held = sum(s == "held_out" for s in fixed.values())
    seeds = [("fixed split (seeds 2000+ held out, 1000+ train)", fixed)]
    # the re-drawn splits hold out half the designs (the fixed split's 2:1 order leaves few to train on)
    seeds += [(f"re-drawn split, seed {s}", resplit(measured, s, (len(measured) + 1) // 2)) for s in (1, 2)]
    results, rankers = [], []
    for i, (name, split) in enumerate(seeds):
        r, ranker = evaluate_split(measured, split, i)
        results.append({"name": name, **r})
        rankers.append(ranker)
    rows = []
    for m in measured:
        kinds: dict = {}
        for o in m["options"]:
            kinds[o["kind"]] = kinds.get(o["kind"], 0) + 1
        g = gains(m)
        per = results[0]["per_design"].get(m["design"], {})
        rows.append({"design": m["design"], "split": m["split"], "blocks": m["blocks"],
                     "templates": " ".join(m["templates"]), "options": len(g),
                     "chains2": m.get("chains2"), "kinds": " ".join(f"{k}:{n}" for k, n in kinds.items()),
                     "proven": sum(o["status"] == "proven" for o in m["options"]), "pay": sum(x > 1 for x in g),
                     "best": round(max(g), 4),
                     **{f"{c}@{k}": round(math.exp(per[f"{c}@{k}"]), 4) for k in KS
                        for c in ("random",) + CHOOSERS if per.get(f"{c}@{k}") is not None},
                     "s_flow": m["seconds_flow"], "load": m.get("load")})
    write_rows(OUT / "choice_gen.csv", rows)
    corpus = corpus_check(rankers[0])
    summary = {"seeds": [{k: v for k, v in r.items() if k != "per_design"} for r in results], "corpus": corpus,
               "drawn": {m["design"]: drawn(m, rankers[0]) for m in measured if fixed[m["design"]] == "held_out"}}
    (OUT / "choice_gen_summary.json").write_text(json.dumps(summary, indent=1) + "\n")
    extra = {"machine load (1/5/15 min)": f"{load0} at start of this invocation, "
             f"{' '.join(f'{x:.2f}' for x in os.getloadavg())} at end (per design: column `load`)",
             "wall time of this invocation": f"{wall:.0f} s",
             "code": os.popen("git rev-parse --short HEAD").read().strip()}
    body = header("Choosers on generated designs whose options pay and outnumber the budget (issue 57)", extra)
    body += (f"\n- {len(measured)} designs measured ({n_held} held out); every option once through the full flow "
             "without place and route and without a noise floor (a proven ratio above 1.0 counts).\n"
             "- Paired differences: per held-out design log(best@k chooser) - log(best@k random, exact "
             "expectation); mean and 95% bootstrap CI over held-out designs.\n\n")
    for r in results:
        body += (f"### {r['name']}: learned fitted on {r['train_options']} options of {r['train_designs']} train "
                 f"designs ({r['train_counted']} counted), scored on {r['held_designs']} held-out designs\n\n"
                 "| k | random geomean | " + " | ".join(f"{c} - random [CI]" for c in CHOOSERS)
                 + " | learned - estimate [CI] |\n|---|---|" + "---|" * (len(CHOOSERS) + 1) + "\n")
        for k in KS:
            ci = r["ci"]
            body += f"| {k} | {math.exp(ci[f'random@{k}']):.4f} | " + " | ".join(
                f"{ci[f'{c}@{k}'][0]:+.4f} [{ci[f'{c}@{k}'][1]:+.4f}, {ci[f'{c}@{k}'][2]:+.4f}]"
                for c in CHOOSERS + ("learned-estimate",)) + " |\n"
        body += "\n"
    old = shipped_on(measured, fixed)
    summary["shipped_on_generated"] = old
    body += ("### The shipped weights (fitted on 4 corpus designs) on the generated held-out designs, fixed split\n\n"
             + "".join(f"- k={k}: shipped - random {v[0]:+.4f} [{v[1]:+.4f}, {v[2]:+.4f}]\n" for k, v in old.items())
             + "\n")
    (OUT / "choice_gen_summary.json").write_text(json.dumps(summary, indent=1) + "\n")
    if corpus:
        body += ("### The ranker of the fixed split (`learned`) and the shipped weights (`shipped`, fitted on the "
                 "corpus designs marked train: in-sample there) on the corpus designs of choice_replay\n\n"
                 + md_table(pd.DataFrame([{"design": d, **v} for d, v in corpus.items()])) + "\n\n")
    body += "### Per design (held-out columns from the fixed split)\n\n" + md_table(pd.DataFrame(rows)) + "\n\n"
    body += "### What each chooser drew first on the held-out designs (fixed split; counted ratio)\n\n"
    body += md_table(pd.DataFrame([{"design": d, **v} for d, v in summary["drawn"].items()])) + "\n"
    write_with_reading(OUT / "choice_gen.md", body)
