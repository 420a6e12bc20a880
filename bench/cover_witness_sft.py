"""Points closed by the model with the witness-trained adapter (`--adapter cover`) against the bundled default
adapter, formal phase off, on the designs the random phase leaves open (those of cover_closure_sft.md), same
budget as bench/cover_closure.py; then what share of the formal phase's work the model saved: eda.reach on the
holes the random phase left (the same random runs for both), with witnesses replayed, and the points the model
closed among them. Writes bench/results/cover_closure_witness_sft.{csv,md}.

With `--random-budget N` below the default 8 the model gets the holes a shorter random phase leaves, most of
them reachable (after the full random phase nearly every hole left is proven unreachable, so the model has
nothing it could close). Each closed point is then checked against a random-only job at the same budget (all
12 simulations random, long rounds included): the points the model closed that random also reaches, and those
it does not. Writes bench/results/cover_closure_witness_sft_r{N}.{csv,md}.

    OMP_NUM_THREADS=1 nice -n 10 .venv/bin/python bench/cover_witness_sft.py
    OMP_NUM_THREADS=1 nice -n 10 .venv/bin/python bench/cover_witness_sft.py --random-budget 1
"""
import argparse
import os
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import pandas as pd  # noqa: E402

from bench.common import header, md_table, write_rows  # noqa: E402
from bench.cover_closure import _uptime, job  # noqa: E402

OUT = ROOT / "bench" / "results" / "cover_closure_witness_sft"
ADAPTERS = ("default", "cover")


def _designs() -> list:
    df = pd.read_csv(ROOT / "bench" / "results" / "cover_closure_sft.csv")       # where the model runs at all
    return list(zip(df["suite"], df["task"]))


def _sims(run: Path):
    """The simulation records of a finished job folder."""
    from rtl_agent.jobs import cover
    from training.store import RunStore
    with RunStore(run / "run.sqlite") as st:
        sims = cover._state(st)
    return sims


def formal_work(suite, name, run: Path, args) -> dict:
    """eda.reach on the holes the random phase left (formal phase as the job runs it, replay included)."""
    from designs import load_suite
    from eda import fsm, reach, reach_replay
    from rtl_agent.jobs import cover
    from rtl_agent.jobs.cover import formal
    t = next(x for x in load_suite(suite, only=name) if x.name == name)
    src = t.reference_sources()
    sims = _sims(run)
    db = cover._union([s for s in sims if s.get("kind") == cover.RANDOM], src)
    keys = formal.open_keys(db)
    fsms = fsm.extract(src, t.top) if t.clock else []
    t0 = time.monotonic()
    rep = reach.decide(src, t.top, db.all(), keys, t.ports, t.clock, t.reset, t.reset_active_low, fsms,
                       args.formal_budget, args.formal_point) if keys else reach.Report()
    wit = {k: v.vectors for k, v in rep.verdicts.items() if v.status == "witness"}
    _, hits = reach_replay.confirm(src, t.top, t.ports, wit, t.clock, t.period_ns, fsms,
                                   phases=rep.clocks if rep.mode == "fflogic" else None)
    secs = time.monotonic() - t0
    return {"open": keys, "verdicts": rep.verdicts, "hit": {k for k, h in hits.items() if h["hit"]},
            "seconds": secs}


def random_only(suite, name, src, base: dict) -> set:
    """Keys a random-only job reaches at the same budget (every simulation random; no model loads)."""
    r = job((suite, name, {**base, "adapter": "none", "random_budget": base["budget"], "patience": base["budget"] + 1,
                           "tag": "wsft_random_only"}))
    if r.get("status") != "done":
        return set()
    db = cover_union(Path(base["runs"]) / "wsft_random_only" / name, src)
    return {p.key for p in db.points.values() if p.count > 0}


def _suffix(args) -> str:
    """Results file and run tags of a shorter random phase than the default 8 runs."""
    return "" if args.random_budget == 8 else f"_r{args.random_budget}"


def model_closed(run: Path, src) -> set:
    """Keys covered by the job but not by its random phase (formal off: the model closed them)."""
    from rtl_agent.jobs import cover
    sims = _sims(run)
    rnd = cover._union([s for s in sims if s.get("kind") == cover.RANDOM], src)
    allu = cover._union(sims, src)
    return {p.key for p in allu.points.values() if p.count > 0} - {p.key for p in rnd.points.values() if p.count > 0}


def cover_union(run: Path, src):
    from rtl_agent.jobs import cover
    return cover._union(_sims(run), src)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--only", default="", help="comma list of designs")
    ap.add_argument("--budget", type=int, default=12)
    ap.add_argument("--max-tokens", type=int, default=128)
    ap.add_argument("--random-budget", type=int, default=8,
                    help="random runs at most before the model (patience 4); below 8 the results go to "
                         "cover_closure_witness_sft_r{N} and each closure is checked against a random-only job")
    ap.add_argument("--formal-budget", type=float, default=60.0)
    ap.add_argument("--formal-point", type=float, default=8.0)
    ap.add_argument("--runs", default=str(ROOT / "runs" / "bench-cover-closure"))
    ap.add_argument("--report-only", action="store_true", help="rewrite the .md from the .csv, run nothing")
    args = ap.parse_args(argv)
    global OUT
    sfx = _suffix(args)
    OUT = OUT.with_name(OUT.name + sfx)
    if args.report_only:
        old = pd.read_csv(OUT.with_suffix(".csv")).astype(object)
        write_md(old.where(old.notna(), "").to_dict("records"), _uptime(), 0.0, args)
        return 0
    from designs import load_suite
    ds = _designs()
    if args.only:
        ds = [d for d in ds if d[1] in set(args.only.split(","))]
    start, t0, rows = _uptime(), time.monotonic(), []
    base = {"target": "line=95,branch=90,toggle=80", "budget": args.budget, "random_budget": args.random_budget, "patience": 4,
            "group": 8, "max_tokens": args.max_tokens, "runs": args.runs, "no_train": True, "formal": False,
            "formal_budget": args.formal_budget, "formal_point": args.formal_point, "target_of": "all"}
    for suite, name in ds:
        row = {"suite": suite, "task": name}
        closed = {}
        src = next(x for x in load_suite(suite, only=name) if x.name == name).reference_sources()
        for a in ADAPTERS:
            r = job((suite, name, {**base, "adapter": a, "tag": f"wsft{sfx}_{a}"}))
            row.update({f"{a}_{k}": r.get(k, "") for k in ("status", "job_total_pct", "model_samples", "model_ran",
                                                         "model_no_code", "closed_by_model", "job_s")})
            if r.get("status") == "done":
                closed[a] = model_closed(Path(args.runs) / f"wsft{sfx}_{a}" / name, src)
                row[f"{a}_closed_keys"] = "|".join(sorted(closed[a]))
            print(f"{name:24s} {a:8s} closed {r.get('closed_by_model')} ran {r.get('model_ran')}/"
                  f"{r.get('model_samples')} {r.get('job_s')}s {r.get('note', '')}", flush=True)
        if sfx and (closed.get("cover") or closed.get("default")):
            rnd = random_only(suite, name, src, base)
            for a in ADAPTERS:
                row[f"{a}_beyond_random"] = len(closed.get(a, set()) - rnd)
        if closed.get("cover"):
            db = cover_union(Path(args.runs) / f"wsft{sfx}_cover" / name, src)
            row["cover_closed_points"] = "; ".join(sorted(db.points[k].describe().split(" in uut")[0]
                                                          for k in closed["cover"]))[:300]
        if closed.get("cover") or closed.get("default"):
            f = formal_work(suite, name, Path(args.runs) / f"wsft{sfx}_default" / name, args)
            wit, und = f["hit"], {k for k, v in f["verdicts"].items() if v.status != "unreachable"} - f["hit"]
            for a in ADAPTERS:
                c = closed.get(a, set())
                row[f"{a}_saved_witness"] = len(c & wit)        # formal would have searched and found these
                row[f"{a}_beyond_formal"] = len(c & und)       # formal left these undecided
                row[f"{a}_formal_unreachable"] = len(c & {k for k, v in f["verdicts"].items() if v.status == "unreachable"})
                row[f"{a}_saved_formal_s"] = round(sum(f["verdicts"][k].seconds for k in c & set(f["verdicts"])), 1)
            row.update({"formal_open": len(f["open"]), "formal_witness": len(wit),
                        "formal_unreachable": sum(v.status == "unreachable" for v in f["verdicts"].values()),
                        "formal_s": round(f["seconds"], 1),
                        "formal_decide_s": round(sum(v.seconds for v in f["verdicts"].values()), 1)})
        rows.append(row)
        cols = sorted({k for x in rows for k in x}, key=lambda k: list(row).index(k) if k in row else 99)
        write_rows(OUT.with_suffix(".csv"), [{c: x.get(c, "") for c in cols} for x in rows])
    write_md(rows, start, time.monotonic() - t0, args)
    return 0


def write_md(rows, start, secs, args):
    def tot(k):
        return sum(int(r.get(k) or 0) for r in rows)
    summary = {"designs": len(rows)}
    for r in rows:
        for a in ADAPTERS:
            # a point formal proves unreachable from reset was reached outside the reset protocol: a conflict
            if f"{a}_conflict" not in r:
                r[f"{a}_conflict"] = int(r.get(f"{a}_formal_unreachable") or 0)
                r[f"{a}_closed_by_model"] = int(r.get(f"{a}_closed_by_model") or 0) - r[f"{a}_conflict"]
                if r.get(f"{a}_beyond_random") not in (None, ""):     # random never reaches a conflict point
                    r[f"{a}_beyond_random"] = int(r[f"{a}_beyond_random"]) - r[f"{a}_conflict"]
    for a in ADAPTERS:
        summary[f"points closed by the model, adapter {a} (designs with > 0)"] = (
            f"{tot(f'{a}_closed_by_model')} ({sum(int(r.get(f'{a}_closed_by_model') or 0) > 0 for r in rows)})")
        summary[f"samples / ran / no usable statement, adapter {a}"] = (
            f"{tot(f'{a}_model_samples')} / {tot(f'{a}_model_ran')} / {tot(f'{a}_model_no_code')}")
        summary[f"formal witnesses the model made unneeded, adapter {a}"] = (
            f"{tot(f'{a}_saved_witness')} of {tot('formal_witness')} replayed witnesses "
            f"({100 * tot(f'{a}_saved_witness') / max(tot('formal_witness'), 1):.0f}%) on the designs where a model "
            f"closed anything; {tot(f'{a}_beyond_formal')} closed points formal left undecided, "
            f"{tot(f'{a}_formal_unreachable')} it had proven unreachable")
        if _suffix(args):
            summary[f"closed points a random-only job at the same budget does not reach, adapter {a} (designs)"] = (
                f"{tot(f'{a}_beyond_random')} ({sum(int(r.get(f'{a}_beyond_random') or 0) > 0 for r in rows)})")
        summary[f"conflicts, adapter {a}: reached by its stimulus, yet proven unreachable from reset (not counted)"] \
            = tot(f"{a}_conflict")
    cols = ["suite", "task"] + [f"{a}_{k}" for a in ADAPTERS
                                for k in ("closed_by_model", "conflict", "model_ran", "model_samples")
                                + (("beyond_random",) if _suffix(args) else ())] \
        + ["formal_open", "formal_witness", "formal_unreachable", "cover_saved_witness", "default_saved_witness",
           "formal_s", "cover_closed_points"]
    text = (header("Coverage closure: points closed by the witness-trained adapter (formal phase off)", {
        "generated by": f"bench/cover_witness_sft.py ({secs / 60:.0f} min)",
        "command": "OMP_NUM_THREADS=1 nice -n 10 .venv/bin/python bench/cover_witness_sft.py " + " ".join(sys.argv[1:]),
        "load (uptime)": f"at the start: {start}; at the end: {_uptime()}",
        "load (os.getloadavg)": " ".join(f"{x:.2f}" for x in os.getloadavg())})
        + f"\nPer design and adapter: the cover job (bench/cover_closure.py's job, budget {args.budget}, random phase "
        f"at most {args.random_budget} runs with patience 4, then one group of 8 samples x {args.max_tokens} tokens, no RL step, "
        "--no-formal). Formal work: eda.reach (budget "
        f"{args.formal_budget:g} s, {args.formal_point:g} s per point) on the holes the random phase left, witnesses "
        "replayed under Verilator; a model-closed point among the replayed witnesses is formal work saved.\n\n"
        + md_table(pd.DataFrame([[k, v] for k, v in summary.items()], columns=["", "value"])) + "\n\n## Per design\n\n"
        + md_table(pd.DataFrame([[r.get(c, "") for c in cols] for r in rows], columns=cols)) + "\n")
    OUT.with_suffix(".md").write_text(text)


if __name__ == "__main__":
    sys.exit(main())
