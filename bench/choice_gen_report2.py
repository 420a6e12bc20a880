"""The report of the choice benchmark's version 2 (bench/choice_gen2.py designs): bench/results/choice_gen.{md,csv}
and choice_gen_summary.json.

Choosers at k full-flow evaluations, one deep, read off every option's measured outcome: random (the exact
expectation over draws), library (menu order), estimate (greedy by the synthesis-only estimate), learned (the
product ranker, rtl_agent/jobs/optimize/ranker.py, fitted on the train designs only), facts (the same model with
the option's facts: bench/choice_gen_rank.py) and oracle (exhaustive's order: its best at k = menu size is the
ceiling). Three seeds: the rankers fitted on all train designs (seed 0) and on two bootstrap resamples of them
(seeds 1, 2); held-out designs are the same in each. Paired 95% CI of log(best@k chooser) - log(best@k random)
by a bootstrap over held-out designs. A second table restricts each held-out menu to the options on blocks of
templates no train design has (HELD_FAMILY): the choosers there face only templates they never saw.
"""
import json
import math
import os
import random
import re

import pandas as pd

from bench.choice_gen2 import HELD_FAMILY
from bench.choice_gen_bench import OUT, paired_ci
from bench.choice_gen_rank import FactsRanker, facts
from bench.choice_replay import first_best, gains, random_best
from bench.common import header, md_table, write_rows, write_with_reading

KS = (1, 3, 10, 30)
CHOOSERS = ("library", "estimate", "learned", "facts", "oracle")


def prepared(m: dict) -> dict:
    """Facts recomputed from the stored code (so improving facts() needs no rerun) and each option's block
    template (by the block comment above its line, or its signal's instance prefix)."""
    code = m["code"]
    starts = [(code[:x.start()].count("\n") + 1, x.group(1)) for x in re.finditer(r"// block (\w+)", code)]
    tmpl = dict(zip([p for _, p in starts], m["templates"]))
    for o in m["options"]:
        o.update(facts(code, o.get("site", ""), o.get("params")))
        site = o.get("site", "")
        at = re.search(r"(line|offset) (\d+)", site)
        line = (int(at.group(2)) if at.group(1) == "line" else code[:int(at.group(2))].count("\n") + 1) if at else None
        pre = next((p for p in tmpl if re.search(rf"\b{p}_", site)), None)
        if pre is None and line is not None:
            pre = next((p for ln, p in reversed(starts) if ln <= line), None)
        o["template"] = tmpl.get(pre)
    return m


def orders(m: dict, learned, fx) -> dict:
    from rtl_agent.jobs.optimize.estimate import order as est_order
    v, opts = gains(m), m["options"]
    out = {"library": list(range(len(v))), "estimate": est_order([r["estimate"] for r in opts]),
           "oracle": sorted(range(len(v)), key=lambda i: -v[i])}
    out["learned"] = learned.order([r["label"] for r in opts], [r["kind"] for r in opts],
                                   [r["estimate"] for r in opts])
    out["facts"] = fx.order(opts)
    return out


def scores(m: dict, learned, fx) -> dict:
    v, o = gains(m), orders(m, learned, fx)
    s = {f"random@{k}": random_best(v, k) for k in KS}
    s.update({f"{c}@{k}": first_best(v, o[c], k) for k in KS for c in CHOOSERS})
    return s


def restricted(m: dict) -> dict | None:
    """The design with its menu cut to options on blocks of never-seen templates (None if fewer than 3)."""
    opts = [o for o in m["options"] if o.get("template") in HELD_FAMILY]
    return {**m, "options": opts} if len(opts) >= 3 else None


def fit(train: list, seed: int):
    from rtl_agent.jobs.optimize.ranker import Ranker
    if seed:        # a bootstrap resample of the train designs
        r = random.Random(seed)
        train = [r.choice(train) for _ in train]
    rows = [(o, g > 1.0) for m in train for o, g in zip(m["options"], gains(m))]
    return (Ranker.fit([(o["label"], o["kind"], o["estimate"], c) for o, c in rows]), FactsRanker.fit(rows),
            len(rows), sum(c for _, c in rows))


def ci_table(per: list, seed: int) -> dict:
    out = {}
    for k in KS:
        out[f"random@{k}"] = sum(s[f"random@{k}"] for s in per) / max(1, len(per))
        for c in CHOOSERS:
            out[f"{c}@{k}"] = paired_ci([s[f"{c}@{k}"] - s[f"random@{k}"] for s in per], seed)
        for c in ("learned", "facts"):
            out[f"{c}-estimate@{k}"] = paired_ci([s[f"{c}@{k}"] - s[f"estimate@{k}"] for s in per], seed)
    return out


def md_ci(ci: dict) -> str:
    cols = CHOOSERS + ("learned-estimate", "facts-estimate")
    s = "| k | random geomean | " + " | ".join(f"{c} - random [CI]" if "-" not in c else f"{c} [CI]"
                                              for c in cols) + " |\n|---|---|" + "---|" * len(cols) + "\n"
    for k in KS:
        s += f"| {k} | {math.exp(ci[f'random@{k}']):.4f} | " + " | ".join(
            f"{ci[f'{c}@{k}'][0]:+.4f} [{ci[f'{c}@{k}'][1]:+.4f}, {ci[f'{c}@{k}'][2]:+.4f}]" for c in cols) + " |\n"
    return s


def context_table(measured: list) -> pd.DataFrame:
    """How often an option pays, by kind and by the fact that decides it: the estimate alone cannot tell."""
    rows = []
    for m in measured:
        for o, g in zip(m["options"], gains(m)):
            ctx = " ".join(w for w in __import__("bench.choice_gen_rank", fromlist=["x"]).fact_words(o)
                           if ":" not in w and (w.startswith(("keeps", "mode")) or o["kind"] == "share"))
            rows.append({"kind": o["kind"], "context": ctx, "pays": g > 1.0,
                         "promised": (o["estimate"] or 0) > 1.01, "split": m["split"]})
    df = pd.DataFrame(rows)
    t = df.groupby(["kind", "context"]).agg(options=("pays", "size"), pay=("pays", "sum"),
                                             promised=("promised", "sum"),
                                             promised_failed=("promised", lambda s: int((s & ~df.loc[s.index, "pays"]).sum())))
    return t.reset_index()


def write(measured: list, load0: str, wall: float, extra: list = ()):
    """extra: version 1's designs (bench/choice_gen.py), added to the rankers' training data: their templates are
    version 2's train family or its predecessors, never a held-out family."""
    measured = [prepared(m) for m in measured]
    train = [m for m in measured if m["split"] == "train"]
    held = [m for m in measured if m["split"] == "held_out"]
    if not train or not held:
        print(f"choice_gen_report2: {len(train)} train and {len(held)} held-out designs; need both")
        return
    seeds, per0 = [], {}
    # seeds 0-2: the train part only (the issue's definition); "0+v1": version 1's designs added
    for seed in (0, 1, 2, "0+v1"):
        learned, fx, n_opt, n_cnt = fit(train + list(extra), 0) if seed == "0+v1" else fit(train, seed)
        per = {m["design"]: scores(m, learned, fx) for m in held}
        cut = [(r, scores(r, learned, fx)) for r in map(restricted, held) if r]
        b = seed if isinstance(seed, int) else 0
        seeds.append({"seed": seed, "train_options": n_opt, "train_counted": n_cnt, "ci": ci_table(list(per.values()), b),
                      "unseen": ci_table([s for _, s in cut], b), "unseen_designs": len(cut)})
        if seed == 0:
            per0, ranks0 = per, (learned, fx)
    rows = []
    for m in measured:
        g, kinds = gains(m), {}
        for o in m["options"]:
            kinds[o["kind"]] = kinds.get(o["kind"], 0) + 1
        s = per0.get(m["design"], {})
        rows.append({"design": m["design"], "split": m["split"], "blocks": m["blocks"],
                     "templates": " ".join(t + ("*" if t in HELD_FAMILY else "") for t in m["templates"]),
                     "options": len(g), "chains2": m.get("chains2"), "kinds": " ".join(f"{k}:{n}" for k, n in kinds.items()),
                     "proven": sum(o["status"] == "proven" for o in m["options"]), "pay": sum(x > 1 for x in g),
                     "exhaustive": round(max(g), 4),
                     **{f"{c}@{k}": round(math.exp(s[f"{c}@{k}"]), 4) for k in (10, 30)
                        for c in ("random",) + CHOOSERS if s},
                     "s_flow": m["seconds_flow"], "load": m.get("load")})
    keys = list(dict.fromkeys(k for r in rows for k in r))
    write_rows(OUT / "choice_gen.csv", [{k: r.get(k) for k in keys} for r in rows])
    drawn = {}
    for m in held:
        v, o = gains(m), orders(m, *ranks0)
        drawn[m["design"]] = {c: "; ".join(f"{m['options'][i]['label'][:40]} = {v[i]:.3f}" for i in o[c][:3])
                              for c in ("estimate", "learned", "facts")}
    (OUT / "choice_gen_summary.json").write_text(json.dumps({"seeds": seeds, "drawn": drawn}, indent=1) + "\n")
    meta = {"machine load (1/5/15 min)": f"{load0} at start of this invocation, "
             f"{' '.join(f'{x:.2f}' for x in os.getloadavg())} at end (per design: column `load`)",
             "wall time of this invocation": f"{wall:.0f} s", "code": os.popen("git rev-parse --short HEAD").read().strip()}
    body = header("Choosers on generated designs whose options outnumber the budget, version 2 (issue 57)", meta)
    body += (f"\n- {len(measured)} designs ({len(held)} held out, {len(train)} train) from bench/choice_gen2.py; every "
             "option once through the full flow without place and route and without a noise floor (a proven ratio "
             "above 1.0 counts). Templates marked * are held-out-only families (no train design has them).\n"
             "- Paired differences per held-out design: log(best@k chooser) - log(best@k random, exact expectation); "
             "mean and 95% bootstrap CI over held-out designs.\n\n")
    for s in seeds:
        what = {0: f"the {len(train)} train designs", 1: "a bootstrap resample of the train designs",
                2: "a bootstrap resample of the train designs",
                "0+v1": f"the {len(train)} train designs and the {len(extra)} version-1 designs"}[s["seed"]]
        body += (f"### Seed {s['seed']}: rankers fitted on {what}, {s['train_options']} options "
                 f"({s['train_counted']} counted), scored on {len(held)} held-out designs\n\n" + md_ci(s["ci"]) + "\n")
        body += (f"Only options on never-seen templates ({s['unseen_designs']} held-out designs with >= 3 such "
                 "options):\n\n" + md_ci(s["unseen"]) + "\n")
    body += "### When an option pays, by kind and deciding fact (all designs)\n\n" + md_table(context_table(measured)) + "\n\n"
    body += "### Per design (chooser columns: seed 0, held-out designs only)\n\n" + md_table(pd.DataFrame(rows)) + "\n\n"
    body += ("### What each chooser drew first on the held-out designs (seed 0; counted ratio)\n\n"
             + md_table(pd.DataFrame([{"design": d, **v} for d, v in drawn.items()])) + "\n")
    write_with_reading(OUT / "choice_gen.md", body)
