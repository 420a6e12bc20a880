"""Choosers replayed on measured outcomes (issue 57): every option the library offers on a design's reference
goes once through the full flow (simulation or equivalence proof against the reference, synthesis, STA), then
each chooser's best at k evaluations is read off those outcomes, exactly and for any k, with no run per chooser.

Choosers at k evaluations (one deep: options of the reference; chains are not replayed):
- random: the expected best of k options drawn uniformly without repetition (exact, over all draws);
- library: the first k in the library's menu order (what a chooser with no preference sees first);
- estimate: the k best by the synthesis-only estimate (`--chooser estimate`, estimate.py);
- learned: ranker.py fitted on the training split's measured options, scored on held-out designs only;
- oracle: the k best by the measured outcome (the ceiling; exhaustive's best once k covers the menu).
An outcome counts only when proven equivalent and above the design's noise floor (`--noise`; else 1.0x).

    flock /tmp/rtl-heavy.lock .venv/bin/python bench/choice_replay.py [--split all|train|held_out] [--only a,b] [--noise]

Designs come from bench/results/choice_menu.json (its split). Writes bench/results/choice_replay.{md,csv,json};
a design already measured there is read back, not run again (delete its row to rerun).
"""
import argparse
import json
import math
import os
import signal
import sys
import time
from pathlib import Path

import pandas as pd

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.common import header, md_table, write_rows, write_with_reading  # noqa: E402
from bench.choice_menu import corpus_modules  # noqa: E402
from eda.report import is_proven  # noqa: E402

OUT = Path(__file__).resolve().parent / "results"
KS = (1, 2, 3, 5, 10)


def measure(label: str, f: Path, top: str, noise: bool, work: Path) -> dict:
    """Every option of the reference through the full flow, and its estimate."""
    from rtl_agent.cli import build_parser
    from rtl_agent.commands import task as task_cmd
    from rtl_agent.commands.optimize import config_from_args
    from rtl_agent.jobs.optimize import OptimizeEnv
    from rtl_agent import transforms as T
    from bench.real_designs import files_of
    slug = "".join(c if c.isalnum() else "_" for c in label)
    args = build_parser().parse_args(["optimize", *map(str, files_of(f.parent, f.name)), "--top", top,
                                      "--actions", "transform", "--chooser", "estimate", "--no-pnr",
                                      "--no-cross-pdk", "--out", str(work / slug),
                                      *([] if noise else ["--no-noise"])])
    args.task = task_cmd.resolve(args)
    env = OptimizeEnv(config_from_args(args), work / slug)
    t0 = time.monotonic()
    env.open()
    ref = "\n".join(env.ref_src.values())
    opts = env.kit.transform_options(ref, None, None)
    t_open, t1 = time.monotonic() - t0, time.monotonic()
    est = env.kit.estimated(ref, opts)
    t_est, rows = time.monotonic() - t1, []
    for o, e in zip(opts, est):
        t2 = time.monotonic()
        try:
            rep = env._eval(T.apply(env.kit.design(ref), o))
            proven = rep.ok and is_proven(rep.equiv_status or "") and bool(rep.ppa)
            ratio = env.ref_ppa / rep.ppa if proven else 0.0
            status = "proven" if proven else f"{rep.status} at {rep.failed_stage or 'equiv'}"
        except Exception as ex:    # noqa: BLE001 - an option that does not apply is an outcome like a failure
            ratio, status = 0.0, f"apply: {type(ex).__name__}"
        rows.append({"label": o.label, "kind": o.kind, "estimate": e, "ratio": round(ratio, 5), "status": status,
                     "seconds": round(time.monotonic() - t2, 1), "site": o.site, "params": o.params})
    return {"design": label, "top": top, "noise_floor": env.noise.floor, "options": rows,
            "seconds_open": round(t_open, 1), "seconds_estimate": round(t_est, 1),
            "seconds_flow": round(sum(r["seconds"] for r in rows), 1)}


def gains(m: dict) -> list[float]:
    """Each option's counted ratio: proven and above the noise floor, else 1.0 (the reference stays best)."""
    return [r["ratio"] if r["ratio"] > max(1.0, m["noise_floor"]) else 1.0 for r in m["options"]]


def random_best(v: list, k: int) -> float:
    """E[log best of k drawn without repetition] over all draws: sorted ascending, the i-th (1-based) is the
    best of a draw with probability C(i-1, k-1) / C(n, k)."""
    v, n = sorted(v), len(v)
    k = min(k, n)
    return sum(math.log(x) * math.comb(i - 1, k - 1) for i, x in enumerate(v, 1)) / math.comb(n, k) if n else 0.0


def first_best(v: list, order: list, k: int) -> float:
    return max([0.0] + [math.log(v[i]) for i in order[:k]])


def training_rows(measured: list) -> list:
    """(label, kind, estimate, counted) of every option of the training split's designs."""
    return [(r["label"], r["kind"], r["estimate"], g > 1.0) for m in measured if m.get("split") == "train"
            for r, g in zip(m["options"], gains(m))]


def scores(m: dict, ranker=None) -> dict:
    from rtl_agent.jobs.optimize.estimate import order as est_order
    v, opts = gains(m), m["options"]
    est = est_order([r["estimate"] for r in opts])
    oracle = sorted(range(len(v)), key=lambda i: -v[i])
    learned = ranker.order([r["label"] for r in opts], [r["kind"] for r in opts], [r["estimate"] for r in opts]) \
        if ranker else None
    out = {}
    for k in KS:
        out[f"random@{k}"] = random_best(v, k)
        out[f"library@{k}"] = first_best(v, list(range(len(v))), k)
        out[f"estimate@{k}"] = first_best(v, est, k)
        out[f"learned@{k}"] = first_best(v, learned, k) if learned else None
        out[f"oracle@{k}"] = first_best(v, oracle, k)
    return out


def report(measured: list, load0: str, wall: float):
    from rtl_agent.jobs.optimize.ranker import Ranker
    train = training_rows(measured)
    ranker = Ranker.fit(train) if train else None
    rows = []
    for m in measured:
        s = scores(m, ranker if m.get("split") == "held_out" else None)
        rows.append({"design": m["design"], "split": m.get("split", "-"), "options": len(m["options"]),
                     "proven": sum(r["status"] == "proven" for r in m["options"]),
                     "above_noise": sum(x > 1.0 for x in gains(m)), "noise_floor": round(m["noise_floor"], 4),
                     **{k: None if x is None else round(math.exp(x), 4) for k, x in s.items()},
                     "s_open": m["seconds_open"], "s_estimate": m["seconds_estimate"], "s_flow": m["seconds_flow"]})
    write_rows(OUT / "choice_replay.csv", rows)
    (OUT / "choice_replay.json").write_text(json.dumps(measured, indent=1) + "\n")
    df = pd.DataFrame(rows)
    extra = {"machine load (1/5/15 min)": f"{load0} at start, "
             f"{' '.join(f'{x:.2f}' for x in os.getloadavg())} at end", "wall time of this invocation": f"{wall:.0f} s",
             "code": os.popen("git rev-parse --short HEAD").read().strip()}
    body = header("Choosers replayed on measured outcomes, one deep (issue 57)", extra) + "\n"
    held = df[df["split"] == "held_out"] if len(df) else df
    body += (f"- {len(rows)} designs ({len(held)} held out); `learned` is fitted on the {len(train)} options of "
             "the training split's designs and scored on the held-out ones only. Columns `chooser@k`: the best "
             "counted ratio within k full-flow evaluations (random: the exact expectation over draws).\n"
             "- geomean over the held-out designs:\n")
    for k in KS:
        if len(held):
            g = {c: math.exp(sum(math.log(x) for x in held[f"{c}@{k}"]) / len(held))
                 for c in ("random", "library", "estimate", "learned", "oracle") if held[f"{c}@{k}"].notna().all()}
            body += f"  - k={k}: " + ", ".join(f"{c} {x:.4f}" for c, x in g.items()) + "\n"
    body += "\n" + md_table(df) + "\n" if len(df) else ""
    write_with_reading(OUT / "choice_replay.md", body)


class TooLong(Exception):
    pass


def _too_long(*_):
    raise TooLong("over --design-s: left out (its evaluations cost more than this benchmark can spend)")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--split", default="all", choices=("held_out", "train", "all"),
                    help="which part of the choice benchmark's split to measure (all: train first)")
    ap.add_argument("--only", default="", help="comma list of substrings of design labels")
    ap.add_argument("--noise", action="store_true", help="measure each design's noise floor (minutes on big ones)")
    ap.add_argument("--max-options", type=int, default=40, help="skip designs offering more options than this")
    ap.add_argument("--min-options", type=int, default=6, help="skip designs offering fewer options than this")
    ap.add_argument("--work", default="runs/bench/choice_replay")
    ap.add_argument("--design-s", type=int, default=300, help="wall seconds per design before it is left out")
    a = ap.parse_args()
    split = json.loads((OUT / "choice_menu.json").read_text())
    counts = {r["design"]: r["options"] for r in split["rows"]}
    old = {m["design"]: m for m in json.loads((OUT / "choice_replay.json").read_text())} \
        if (OUT / "choice_replay.json").exists() else {}
    todo = [m for m in corpus_modules() if split["split"].get(m[0], "-") != "-"
            and (a.split == "all" or split["split"][m[0]] == a.split)
            and (not a.only or any(s in m[0] for s in a.only.split(",")))
            and a.min_options <= counts.get(m[0], 0) <= a.max_options]
    # train and held-out designs alternate, so a pass stopped early leaves both parts measured
    # (smaller menus first: more designs per hour)
    parts = [sorted((m for m in todo if split["split"][m[0]] == s), key=lambda m: counts[m[0]])
             for s in ("train", "held_out")]
    todo = [m for pair in zip(*parts) for m in pair] + parts[0][len(parts[1]):] + parts[1][len(parts[0]):]
    load0, t0, measured = " ".join(f"{x:.2f}" for x in os.getloadavg()), time.monotonic(), []
    signal.signal(signal.SIGALRM, _too_long)
    for i, (label, f, top) in enumerate(todo, 1):
        if label not in old:
            signal.alarm(a.design_s)
            try:
                old[label] = {**measure(label, f, top, a.noise, Path(a.work)), "split": split["split"][label]}
            except Exception as ex:    # noqa: BLE001 - a design whose reference fails its flow is reported, not fatal
                print(f"[{i}/{len(todo)}] {label}: {type(ex).__name__}: {str(ex).splitlines()[0][:200]}", flush=True)
                continue
            finally:
                signal.alarm(0)
        measured.append(old[label])
        s = scores(old[label])
        print(f"[{i}/{len(todo)}] {label}: {len(old[label]['options'])} options; at 3: random "
              f"{math.exp(s['random@3']):.3f} estimate {math.exp(s['estimate@3']):.3f} oracle "
              f"{math.exp(s['oracle@3']):.3f}", flush=True)
        report(measured, load0, time.monotonic() - t0)


if __name__ == "__main__":
    main()
