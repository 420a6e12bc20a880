"""Choosers compared on generated designs whose options pay and outnumber the budget (issue 57).

Designs come from bench/choice_gen.py: the train split from seeds TRAIN_SEEDS, the held-out split from
HELD_SEEDS (disjoint; nothing is fitted on a held-out design). Every option of a design goes once through the
full flow (bench/choice_replay.measure: simulation against the reference, equivalence proof, synthesis, STA; no
place and route, no noise floor: an option counts when proven and its ratio is above 1.0), then each chooser's
best at k evaluations is read off those outcomes (choice_replay.scores: random is the exact expectation over
draws, library the menu order, estimate the synthesis-only estimate, learned the ranker fitted on the train
split's outcomes, oracle the measured order).

Paired comparison: per held-out design, log(best@k chooser) - log(best@k random); 95% CI by a bootstrap over
held-out designs. Three seeds: the fixed split, and two more splits of all measured designs drawn at random
(half held out by a seeded shuffle, the ranker refitted on each train half).

Version 2 (the default, --gen 2): designs from bench/choice_gen2.py (>= 30 options one deep, payoffs that depend
on context, template families split between train and held out), named g2h<i> (held out) and g2t<i> (train),
each under a wall cap; every option record also keeps its site, params and facts (bench/choice_gen_rank.py) and
the design its code. The report is bench/choice_gen_report2.py. Version 1's designs stay in the JSON (their
report: bench/results/choice_gen_v1.md, from --gen 1 --report before version 2 replaced it).

    nice -n 10 .venv/bin/python bench/choice_gen_bench.py [--designs 16] [--train 8] [--deadline S] [--design-s S]
    .venv/bin/python bench/choice_gen_bench.py --report        # the report from what is measured, no flow

Writes bench/results/choice_gen.{md,csv,json}; a design already in choice_gen.json is read back, not rerun.
"""
import argparse
import json
import math
import os
import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.choice_gen import generate  # noqa: E402
from bench.choice_gen_rank import facts  # noqa: E402
from bench.choice_menu import count  # noqa: E402
from bench.choice_replay import KS as _KS, gains, measure, scores  # noqa: E402

OUT = Path(__file__).resolve().parent / "results"
KS = tuple(sorted(set(_KS) | {30}))
CHOOSERS = ("library", "estimate", "learned", "oracle")
TRAIN_SEEDS, HELD_SEEDS = 1000, 2000          # design i of a split: seed base + i
CHILD_CAP = 8


def rows_of(measured: list, split: dict) -> list:
    return [(r["label"], r["kind"], r["estimate"], g > 1.0) for m in measured if split[m["design"]] == "train"
            for r, g in zip(m["options"], gains(m))]


def all_scores(m: dict, ranker) -> dict:
    """choice_replay.scores at every k of KS (its own KS stop at 10)."""
    import bench.choice_replay as cr
    saved, cr.KS = cr.KS, KS
    try:
        return scores(m, ranker)
    finally:
        cr.KS = saved


def paired_ci(diffs: list, seed: int = 0, n: int = 2000) -> tuple:
    """Mean of the per-design differences and its 95% bootstrap CI over designs."""
    if not diffs:
        return (float("nan"),) * 3
    r = random.Random(seed)
    means = sorted(sum(r.choice(diffs) for _ in diffs) / len(diffs) for _ in range(n))
    return sum(diffs) / len(diffs), means[int(0.025 * n)], means[int(0.975 * n) - 1]


def evaluate_split(measured: list, split: dict, seed: int) -> dict:
    from rtl_agent.jobs.optimize.ranker import Ranker
    train = rows_of(measured, split)
    ranker = Ranker.fit(train) if train else None
    held = [m for m in measured if split[m["design"]] == "held_out"]
    per = {m["design"]: all_scores(m, ranker) for m in held}
    out = {"seed": seed, "train_designs": sum(s == "train" for s in split.values()),
           "held_designs": len(held), "train_options": len(train), "train_counted": sum(r[3] for r in train),
           "per_design": per, "ci": {}}
    for k in KS:
        for c in CHOOSERS:
            d = [s[f"{c}@{k}"] - s[f"random@{k}"] for s in per.values() if s[f"{c}@{k}"] is not None]
            out["ci"][f"{c}@{k}"] = [round(x, 4) for x in paired_ci(d, seed)]
        d = [s[f"learned@{k}"] - s[f"estimate@{k}"] for s in per.values() if s[f"learned@{k}"] is not None]
        out["ci"][f"learned-estimate@{k}"] = [round(x, 4) for x in paired_ci(d, seed)]
        out["ci"][f"random@{k}"] = round(sum(s[f"random@{k}"] for s in per.values()) / max(1, len(per)), 4)
    return out, ranker


def resplit(measured: list, seed: int, held: int) -> dict:
    names = sorted(m["design"] for m in measured)
    random.Random(seed).shuffle(names)
    return {n: "held_out" if i < held else "train" for i, n in enumerate(names)}


def corpus_check(ranker) -> dict:
    """The ranker fitted on generated designs, scored on every corpus design choice_replay measured (none was
    used to fit it): does it hurt there?"""
    p = OUT / "choice_replay.json"
    if not p.exists() or ranker is None:
        return {}
    from rtl_agent.jobs.optimize.ranker import Ranker
    shipped, out = Ranker.load(), {}
    for m in json.loads(p.read_text()):
        s, old = all_scores(m, ranker), all_scores(m, shipped)
        out[m["design"]] = {"split": m.get("split"), **{
            f"{c}@{k}": round(math.exp((old if c == "shipped" else s)[f"{'learned' if c == 'shipped' else c}@{k}"]), 4)
            for k in (1, 3, 5, 10) for c in ("random", "estimate", "learned", "shipped", "oracle")}}
    return out


def shipped_on(measured: list, split: dict) -> dict:
    """The shipped weights (fitted on corpus designs) on the generated held-out designs: {k: CI of - random}."""
    from rtl_agent.jobs.optimize.ranker import Ranker
    shipped = Ranker.load()
    per = [all_scores(m, shipped) for m in measured if split[m["design"]] == "held_out"]
    return {k: [round(x, 4) for x in paired_ci([s[f"learned@{k}"] - s[f"random@{k}"] for s in per])] for k in KS}


def generated(split: str, i: int, min_options: int) -> tuple:
    """Design i of a split, version 2: the fewest blocks (from BLOCKS) whose menu, before the range probe
    adds `narrow`, reaches min_options."""
    from bench import choice_gen2
    from rtl_agent import transforms as T
    for blocks in range(choice_gen2.BLOCKS, choice_gen2.BLOCKS + 5):
        code, top, kinds = choice_gen2.generate(i, split, blocks)
        if len(T.options(T.Design(code, top))) >= min_options:
            break
    return code, top, kinds, blocks


def run_v2(a, done: dict, jp: Path, old: dict):
    """Held-out and train designs of version 2 (bench/choice_gen2.py), two held out per train design, each
    under a wall cap (a design over it is reported and left out; a rerun skips what is in the JSON)."""
    import signal
    from bench.choice_replay import TooLong, _too_long
    held = [("held_out", i) for i in range(a.designs)]
    train = [("train", i) for i in range(a.train)]
    todo = sorted(held + train, key=lambda x: x[1] / 2 if x[0] == "held_out" else x[1] + 0.9)
    t0 = time.monotonic()
    signal.signal(signal.SIGALRM, _too_long)
    for split, i in todo:
        name = f"g2{split[0]}{i}"
        if name in done or name in a.skip.split(","):
            continue
        if a.deadline and time.monotonic() - t0 > a.deadline:
            print(f"choice_gen_bench: --deadline reached; {name} and later left unmeasured", flush=True)
            break
        code, top, kinds, blocks = generated(split, i, a.min_options)
        folder = Path(a.work) / "src2" / name
        folder.mkdir(parents=True, exist_ok=True)
        (folder / f"{top}.v").write_text(code)
        signal.alarm(a.design_s)
        try:
            m = measure(name, folder / f"{top}.v", top, False, Path(a.work))
            c = count(name, folder / f"{top}.v", top, CHILD_CAP)
        except (Exception, TooLong) as ex:    # noqa: BLE001 - reported, not fatal
            print(f"{name}: {type(ex).__name__}: {str(ex).splitlines()[0][:200]}", flush=True)
            continue
        finally:
            signal.alarm(0)
        for o in m["options"]:
            o.update(facts(code, o.get("site", ""), o.get("params")))
        done[name] = {**m, "split": split, "seed": i, "blocks": blocks, "templates": kinds,
                      "generator": "choice_gen2", "code": code,
                      "chains2": c["chains2"], "chains2_exact": c["exact"],
                      "load": " ".join(f"{x:.2f}" for x in os.getloadavg())}
        g = gains(done[name])
        print(f"{name} ({split}): {len(g)} options, {sum(x > 1 for x in g)} pay, best {max(g):.3f}, chains2 "
              f"{c['chains2']}, {m['seconds_flow']:.0f} s flow, load {done[name]['load']}", flush=True)
        jp.write_text(json.dumps({**old, "designs": list(done.values())}, indent=1) + "\n")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--designs", type=int, default=15, help="held-out designs")
    ap.add_argument("--train", type=int, default=10, help="train designs")
    ap.add_argument("--blocks", type=int, default=5, help="blocks per design (version 1 only)")
    ap.add_argument("--gen", type=int, default=2, choices=(1, 2), help="generator version (bench/choice_gen2.py: 2)")
    ap.add_argument("--min-options", type=int, default=30, help="version 2: blocks are added until the menu has this many")
    ap.add_argument("--design-s", type=int, default=900, help="version 2: wall seconds per design before it is left out")
    ap.add_argument("--skip", default="", help="version 2: comma list of design names not to measure (over the cap before)")
    ap.add_argument("--work", default="runs/bench/choice_gen")
    ap.add_argument("--chains2", action="store_true", help="version 1: count chains two deep per design (slow)")
    ap.add_argument("--report", action="store_true", help="write the report from what is measured; run nothing")
    ap.add_argument("--deadline", type=float, default=0, help="stop starting designs after this many seconds")
    a = ap.parse_args()
    jp = OUT / "choice_gen.json"
    old = json.loads(jp.read_text()) if jp.exists() else {"designs": []}
    done = {m["design"]: m for m in old["designs"]}
    t0, load0 = time.monotonic(), " ".join(f"{x:.2f}" for x in os.getloadavg())
    if a.gen == 2:
        if not a.report:
            run_v2(a, done, jp, old)
        from bench.choice_gen_report2 import write as write2
        write2([m for m in done.values() if m.get("generator") == "choice_gen2"], load0, time.monotonic() - t0,
               [m for m in done.values() if "generator" not in m])
        return
    # two held-out designs per train design, so a pass stopped by --deadline has its held-out part first
    held = [("held_out", HELD_SEEDS + i) for i in range(a.designs)]
    train = [("train", TRAIN_SEEDS + i) for i in range(a.train)]
    todo = sorted(held + train, key=lambda x: (x[1] - HELD_SEEDS) / 2 if x[0] == "held_out" else x[1] - TRAIN_SEEDS + 0.9)
    for split, seed in ([] if a.report else todo):
        name = f"gen{seed}_b{a.blocks}"
        if name in done:
            continue
        if a.deadline and time.monotonic() - t0 > a.deadline:
            print(f"choice_gen_bench: --deadline reached; {name} and later left unmeasured", flush=True)
            break
        code, top, kinds = generate(seed, a.blocks)
        folder = Path(a.work) / "src" / name
        folder.mkdir(parents=True, exist_ok=True)
        (folder / f"{top}.v").write_text(code)
        try:
            m = measure(name, folder / f"{top}.v", top, False, Path(a.work))
        except Exception as ex:    # noqa: BLE001 - a design whose reference fails its flow is reported, not fatal
            print(f"{name}: {type(ex).__name__}: {str(ex).splitlines()[0][:200]}", flush=True)
            continue
        # chains two deep, counted (no flow; --chains2 only, it costs as much as the flow on a loaded machine)
        c = count(name, folder / f"{top}.v", top, CHILD_CAP) if a.chains2 else {"chains2": None, "exact": None}
        done[name] = {**m, "split": split, "seed": seed, "blocks": a.blocks, "templates": kinds,
                      "chains2": c["chains2"], "chains2_exact": c["exact"],
                      "load": " ".join(f"{x:.2f}" for x in os.getloadavg())}
        g = gains(done[name])
        print(f"{name} ({split}): {len(g)} options, {sum(x > 1 for x in g)} pay, best {max(g):.3f}, "
              f"{m['seconds_flow']:.0f} s flow, load {done[name]['load']}", flush=True)
        jp.write_text(json.dumps({**old, "designs": list(done.values())}, indent=1) + "\n")
    from bench.choice_gen_report import write
    write(list(done.values()), load0, time.monotonic() - t0)


if __name__ == "__main__":
    main()
