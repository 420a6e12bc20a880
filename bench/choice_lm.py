"""The LM chooser (rtl_agent/jobs/optimize/choose_lm.py) trained on verified outcomes and replayed on held-out
designs, frozen and with its test-time update (issue 57 items 2 and 4).

Data: bench/results/choice_gen.json (bench/choice_gen_bench.py: every option of generated designs once through the
full flow). Training uses the designs marked train there and the corpus designs marked train in choice_replay.json;
never a held-out design, RTLLM or VerilogEval. Recipe: pairwise preference (Bradley-Terry) on the options of one
menu, every pair whose verified rewards differ (choose_lm.reward: log gain, 0 proven without gain, -0.01 failed),
each pair weighted by its reward gap (capped at 0.3), so ordering a 30% gain above a 1% one counts more than
ordering two failures. Why pairwise: what the chooser must get right is the order within one menu; a design's
gains are on its own scale, and a pointwise fit on 22-40 paying options would learn mostly the kinds' base rates.

Replay, per held-out design, no EDA run: each chooser picks options one at a time and reads the recorded outcome.
  random       the exact expectation over draws (choice_replay.random_best)
  estimate     best synthesis-only estimate first
  learned      the logistic ranker (ranker.py) fitted on the same training rows
  lm           the trained LM chooser, frozen (greedy on its score)
  lm_explore   frozen, with the exploration share (a control for ttt)
  ttt          the test-time update (choose_lm.Adapting) with the same exploration share
  base         the untrained model's yes/no prior alone (no adapter, no estimate): what the policy knew before
  base_ttt     the test-time update starting from base: does the update learn "better" on its own?
  exhaustive   every option: the best there is (the ceiling)
Seeds 0-2: seed s trains the adapter from LoRA init s and draws ttt's exploration with s. Differences are paired
per design (log best@k), averaged over seeds, with a 95% bootstrap CI over held-out designs.

    nice -n 10 .venv/bin/python bench/choice_lm.py [--seeds 3] [--epochs N | --max-epochs 15] [--ship]

Writes bench/results/choice_lm.{md,csv,json} (choice_lm_noest.* with --no-estimate: the regime where options are
ordered before any synthesis, so the LM and the ranker read only the option's words); --ship writes seed 0's
adapter to rtl_agent/adapters/smollm2-choose.
Adapters of each seed are kept under --work and reused when the training data is unchanged.
"""
import argparse
import hashlib
import json
import math
import os
import random
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import torch  # noqa: E402

torch.set_num_threads(1)      # 2 cores shared by many jobs: one thread was 10x faster than two at load 18
import torch.nn.functional as F  # noqa: E402

from bench.choice_gen_bench import paired_ci  # noqa: E402
from bench.choice_replay import first_best, gains, random_best, training_rows  # noqa: E402
from bench.common import header, write_rows  # noqa: E402
from rtl_agent.jobs.optimize import choose_lm as C  # noqa: E402

OUT = Path(__file__).resolve().parent / "results"
KS = (1, 3, 5, 10, 30)
CHOOSERS = ("estimate", "learned", "lm", "lm_explore", "ttt", "base", "base_ttt", "exhaustive")
EXPLORE = 0.1


BLIND = False            # --no-estimate: the LM choosers and the ranker read no estimate (options not synthesized)


def menu(m: dict) -> dict:
    o = m["options"]
    return {"labels": [r["label"] for r in o], "kinds": [r["kind"] for r in o],
            "ests": [None if BLIND else r["estimate"] for r in o],
            "rewards": [C.reward(r["status"], r["ratio"], m.get("noise_floor", 1.0)) for r in o]}


def train(menus: list, seed: int, epochs: int, lr: float = 1e-3, low: dict | None = None, val=None) -> C.LMChooser:
    """Pairwise preference on each menu; val(ch) is called after every epoch (the epoch count's validation)."""
    ch = C.LMChooser.base(seed)
    if low is not None:
        ch._low = low
    lora = [p for p in ch.model.parameters() if p.requires_grad]
    opt = torch.optim.AdamW([{"params": lora, "lr": lr}, {"params": [ch.w], "lr": 0.02}], weight_decay=0.0)
    rng, t0 = random.Random(seed), time.monotonic()
    for ep in range(epochs):
        order, total = list(range(len(menus))), 0.0
        rng.shuffle(order)
        for j in order:
            mu = menus[j]
            g = torch.tensor(mu["rewards"])
            gap = g[:, None] - g[None, :]
            wgt = torch.where(gap > 0.005, gap.clamp(max=0.3), torch.zeros_like(gap))
            if float(wgt.sum()) == 0:
                continue
            z, _ = ch.top([C.prompt(a, b, c) for a, b, c in zip(mu["labels"], mu["kinds"], mu["ests"])])
            s = F.logsigmoid(z) + ch.w * torch.tensor([C.est_term(e) for e in mu["ests"]])
            loss = (wgt * F.softplus(-(s[:, None] - s[None, :]))).sum() / wgt.sum()
            opt.zero_grad()
            loss.backward()
            opt.step()
            total += loss.item()
        print(f"  seed {seed} epoch {ep + 1}/{epochs}: pairwise loss {total / len(menus):.4f}, w {float(ch.w):.3f}, "
              f"{time.monotonic() - t0:.0f} s", flush=True)
        if val:
            val(ch)
    ch.model.eval()
    return ch


def val_best(ch: C.LMChooser, menus: list) -> float:
    """Mean log best@k (k = 1, 3, 5, 10) of the frozen order over validation menus (rewards: a failure is 0)."""
    out = []
    for mu in menus:
        o = ch.order(mu["labels"], mu["kinds"], mu["ests"])
        out += [max([0.0] + [mu["rewards"][i] for i in o[:k]]) for k in (1, 3, 5, 10)]
    return sum(out) / len(out)


def choose_epochs(menus: list, names: list, most: int, low: dict) -> tuple:
    """The epoch count, chosen on the training designs alone: the two paying train designs first by a hash of
    their names are set aside, the rest trained for `most` epochs, and the epoch with the best validation best@k
    wins (the earliest on a tie). Held-out designs are never seen here."""
    paying = sorted((n for n, mu in zip(names, menus) if max(mu["rewards"]) > 0),
                    key=lambda n: hashlib.sha256(n.encode()).hexdigest())
    vset = set(paying[:2])
    fit = [mu for n, mu in zip(names, menus) if n not in vset]
    vm = [mu for n, mu in zip(names, menus) if n in vset]
    curve = []
    train(fit, 0, most, low=low, val=lambda ch: curve.append(round(val_best(ch, vm), 5)))
    best = max(range(len(curve)), key=lambda i: (curve[i], -i))
    print(f"validation on {sorted(vset)}: best@k by epoch {curve} -> {best + 1} epochs", flush=True)
    return best + 1, curve, sorted(vset)


def replay(ch: C.LMChooser, base: C.LMChooser, m: dict, ranker, seed: int) -> dict:
    mu, v = menu(m), gains(m)
    out = {"options": len(v), "pay": sum(x > 1.0 for x in v), "best": max(v)}
    e = [r["estimate"] for r in m["options"]]            # the estimate baseline always has its estimates
    est = sorted(range(len(v)), key=lambda i: (e[i] is None, -(e[i] or 0.0)))
    orders = {"estimate": est, "learned": ranker.order(mu["labels"], mu["kinds"], mu["ests"]),
              "lm": ch.order(mu["labels"], mu["kinds"], mu["ests"]),
              "base": base.order(mu["labels"], mu["kinds"], mu["ests"]),
              "exhaustive": sorted(range(len(v)), key=lambda i: -v[i])}
    for name, model, update in (("lm_explore", ch, False), ("ttt", ch, True), ("base_ttt", base, True)):
        a = C.Adapting(model, mu["labels"], mu["kinds"], mu["ests"], explore=EXPLORE, seed=seed, update=update)
        for _ in range(min(max(KS), len(v))):
            i = a.pick()
            a.observe(i, mu["rewards"][i])
        orders[name] = a.tried
    for k in KS:
        out[f"random@{k}"] = random_best(v, k)
        for c, o in orders.items():
            out[f"{c}@{k}"] = first_best(v, o, k) if c != "exhaustive" else math.log(max(v))
    out["drawn"] = {c: o[:10] for c, o in orders.items() if c in ("lm", "ttt", "estimate")}
    return out


def stats(per: dict, held: list, seeds: list) -> dict:
    """Paired differences per design, averaged over seeds; CIs over designs."""
    pairs = [(f"{c}", "random") for c in CHOOSERS] + [("ttt", "lm"), ("ttt", "lm_explore"), ("lm", "estimate"),
                                                      ("lm", "learned"),
                                                      ("base_ttt", "base")]
    out = {}
    for k in KS:
        for a, b in pairs:
            d = [sum(per[s][n][f"{a}@{k}"] - per[s][n][f"{b}@{k}"] for s in seeds) / len(seeds) for n in held]
            out[f"{a}-{b}@{k}"] = [round(x, 4) for x in paired_ci(d)]
        out[f"random@{k}"] = round(math.exp(sum(per[seeds[0]][n][f"random@{k}"] for n in held) / len(held)), 4)
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--seeds", type=int, default=3)
    ap.add_argument("--epochs", type=int, default=0, help="0: chosen on a validation part of the train split")
    ap.add_argument("--max-epochs", type=int, default=15, help="the most epochs the validation tries")
    ap.add_argument("--work", default="runs/bench/choice_lm")
    ap.add_argument("--no-estimate", action="store_true", help="LM choosers and ranker without estimates; "
                    "writes choice_lm_noest.*")
    ap.add_argument("--ship", action="store_true", help="write seed 0's adapter to rtl_agent/adapters/smollm2-choose")
    a = ap.parse_args()
    t0, load0 = time.monotonic(), " ".join(f"{x:.2f}" for x in os.getloadavg())
    global BLIND
    BLIND = a.no_estimate
    if BLIND and a.ship:
        sys.exit("choice_lm: --ship ships the chooser trained with estimates; not with --no-estimate")
    stem = "choice_lm_noest" if BLIND else "choice_lm"
    gen = [m for m in json.loads((OUT / "choice_gen.json").read_text())["designs"]
           if m.get("generator") in (None, "choice_gen2")]       # choice_gen2a was dropped from its report
    corpus = json.loads((OUT / "choice_replay.json").read_text()) if (OUT / "choice_replay.json").exists() else []
    train_designs = [m for m in gen + corpus if m.get("split") == "train"]
    held = [m for m in gen if m.get("split") == "held_out"]
    menus = [menu(m) for m in train_designs]
    low = {}
    vinfo = {}
    if not a.epochs:
        a.epochs, curve, vset = choose_epochs(menus, [m["design"] for m in train_designs], a.max_epochs, low)
        vinfo = {"validation_designs": vset, "validation_curve": curve}
    key = hashlib.sha256(json.dumps([menus, a.epochs, C.TOP]).encode()).hexdigest()[:10]
    key += "-noest" if BLIND else ""
    from rtl_agent.jobs.optimize.ranker import Ranker
    ranker = Ranker.fit([(lab, k, None if BLIND else e, c) for lab, k, e, c in training_rows(train_designs)])
    per, seeds = {}, list(range(a.seeds))
    base = C.LMChooser(*C._load_base(), w=0.0)       # the untrained model's own prior: what TTT starts from alone
    base._low = low
    for s in seeds:
        folder = Path(a.work) / f"seed{s}-{key}"
        if (folder / "chooser.json").exists():
            ch = C.LMChooser.load(folder)
            ch._low = low
        else:
            t1 = time.monotonic()
            ch = train(menus, s, a.epochs, low=low)
            ch.save(folder, {"trained_on": sorted(m["design"] for m in train_designs),
                             "options": sum(len(x["labels"]) for x in menus), "epochs": a.epochs, "seed": s, **vinfo,
                             "train_s": round(time.monotonic() - t1)})
        per[s] = {m["design"]: replay(ch, base, m, ranker, s) for m in held}
        print(f"seed {s}: replayed {len(held)} held-out designs ({time.monotonic() - t0:.0f} s)", flush=True)
        if s == 0 and a.ship:
            meta = json.loads((folder / "chooser.json").read_text())
            commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True).stdout
            ch.save(C.ADAPTER, {k: v for k, v in meta.items() if k not in ("w", "top", "floor")} | {
                "code": commit.strip(), "source": "bench/results/choice_gen.json, choice_replay.json (train split)"})
    names = [m["design"] for m in held]
    st = stats(per, names, seeds)
    from bench.choice_lm_report import write
    write(per, st, names, seeds, train_designs, a, load0, time.monotonic() - t0, header, vinfo, stem)
    write_rows(OUT / f"{stem}.csv", [{"seed": s, "design": n, **{k: (round(math.exp(x), 4) if "@" in k else x)
                                        for k, x in per[s][n].items() if k != "drawn"}}
                                       for s in seeds for n in names])


if __name__ == "__main__":
    main()
