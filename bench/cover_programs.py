"""Stimulus programs at an equal simulation budget (issue #60 item 2): points closed on corpus modules by
(a) constrained random alone (cover's random phase, all B runs), and, after the same first R random runs,
B - R program runs chosen (b) at random among the library's options, (c) by a per-design bandit over program
kinds, (d) by the policy (the bundled model scoring option labels after a hole-naming prompt; frozen, no
update). Steps of G options, each chooser seeing the union after the previous step. Points: line, branch and
toggle (cover's default target) covered by the union, and all point types. Paired 95% bootstrap CIs over
designs x seeds.

    nice -n 10 .venv/bin/python bench/cover_programs.py [--only axis_register,...] [--seeds 3] [--no-policy]

Per-design results are kept in runs/bench/cover_programs/<design>.json (a rerun resumes); writes
bench/results/cover_programs.{md,csv}.
"""
import argparse
import json
import os
import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.common import header, md_table, write_rows, write_with_reading  # noqa: E402
from bench.real_designs import DESIGNS, files_of  # noqa: E402

OUT = Path(__file__).resolve().parent / "results"
RUNS = Path(__file__).resolve().parent.parent / "runs" / "bench" / "cover_programs"
SKIP = ("axis_fifo (default DEPTH=4096)", "picorv32")        # not in real_designs_jobs.md's 15
MODES = ("random", "prog_random", "prog_bandit", "prog_policy")
TYPES = ("line", "branch", "toggle")


def cached_runs(built):
    """run(program, seed, times): each program run once per (seed, repeat), seeded alike in every mode so the
    modes' results pair."""
    cache = {}

    def run(k, s, times):
        key = (k, s * 1000 + 100 * times + k)
        if key not in cache:
            cache[key] = built.run(k, key[1])
        return cache[key]
    return run


def slug(label: str) -> str:
    return "".join(c if c.isalnum() else "_" for c in label)


def load(label, folder, top_file, top, params):
    from designs import load_task
    from designs.adhoc import write_task
    from eda.config import require_shared
    from eda.design_inputs import gather
    texts = gather(files_of(require_shared(folder), top_file), params=params, top=top)
    return load_task(write_task(texts, top, Path("/tmp/helperF2/tasks") / slug(label)))


def covered(db, types=None) -> int:
    return sum(1 for p in db.points.values() if p.count > 0 and (types is None or p.type in types))


def design(label, spec, seeds, budget, rand_n, group, policy, modes=MODES) -> dict:
    from eda import coverage as cov
    from eda import fsm
    from eda import stim_programs as sp
    from rtl_agent.jobs.cover import CoverConfig, random_text
    from rtl_agent.jobs.cover import programs as P
    from rtl_agent.jobs.cover.env import _limits
    t0 = time.monotonic()
    task = load(label, *spec)
    src = task.reference_sources()
    cfg = CoverConfig()
    fsms = fsm.extract(src, task.top) if task.clock else []
    lim = _limits(cfg)
    args = [[f"+seed={s * 1000 + k}"] for s in range(seeds) for k in range(budget)]
    res = cov.coverage_runs(src, task.top, random_text(task, cfg, src), args, limits=lim, clock=task.clock, fsms=fsms)
    if all(not r.ok for r in res):
        return {"design": label, "error": f"random testbench: {res[0].status}: "
                + "; ".join(str(d) for d in res[0].diagnostics[:2])[:300]}
    rnd = {(s, k): res[s * budget + k] for s in range(seeds) for k in range(budget)}
    ifc, opts = P.menu(task)
    t1 = time.monotonic()
    built = sp.Built(src, task.top, sp.testbench(ifc, task.ports, task.top, opts, task.period_ns), lim, fsms, task.clock)
    build_s = time.monotonic() - t1
    if built.error is not None:
        return {"design": label, "error": f"programs testbench: {built.error.status}: "
                + "; ".join(str(d) for d in built.error.diagnostics[:2])[:300]}
    rows = []

    run = cached_runs(built)
    try:
        for s in range(seeds):
            for mode in modes:
                if mode == "prog_policy" and policy is None:
                    continue
                db = cov.CoverageDB(src)
                n_r = budget if mode == "random" else rand_n
                for k in range(n_r):
                    if rnd[(s, k)].ok:
                        db.add(rnd[(s, k)].points)
                after_random = covered(db, TYPES)
                drawn, bandit, picks, ts = {}, P.KindBandit([o.program for o in opts]), [], time.monotonic()
                step = 0
                while mode != "random" and n_r + len(picks) < budget:
                    n = min(group, budget - n_r - len(picks))
                    msgs = P.prompt(task.top, ifc, db, list(TYPES), [o.label for o in opts]) if mode == "prog_policy" else None
                    idx = P.pick(mode.removeprefix("prog_"), opts, n, seed=s * 7919 + step, drawn=drawn, bandit=bandit,
                                 policy=policy, msgs=msgs)
                    before = covered(db, TYPES)
                    results = []
                    for i in idx:
                        if i is None:
                            continue
                        r = run(i, s, drawn.get(i, 0))
                        drawn[i] = drawn.get(i, 0) + 1
                        results.append((i, r))
                    gap = max(1, sum(1 for p in db.points.values() if p.type in TYPES) - before)
                    for i, r in results:
                        if r.ok:
                            new = len({p.key for p in r.points if p.count > 0 and p.type in TYPES}
                                      - {p.key for p in db.points.values() if p.count > 0})
                            bandit.update(opts[i].program, new / gap)
                    for i, r in results:
                        if r.ok:
                            db.add(r.points)
                    picks += [opts[i].label for i in idx if i is not None] + ["(no option)"] * sum(i is None for i in idx)
                    step += 1
                total = sum(1 for p in db.points.values() if p.type in TYPES)
                rows.append({"design": label, "seed": s, "mode": mode, "points": covered(db, TYPES), "total": total,
                             "after_random": after_random, "all_points": covered(db), "all_total": len(db.points),
                             "picks": " | ".join(picks), "choose_s": round(time.monotonic() - ts, 2)})
    finally:
        built.close()
    return {"design": label, "options": len(opts), "interfaces": ifc.describe(), "build_s": round(build_s, 1),
            "seconds": round(time.monotonic() - t0, 1), "rows": rows}


def paired(rows, a, b, key="points", n_boot=2000) -> dict | None:
    by = {(r["design"], r["seed"], r["mode"]): r[key] for r in rows}
    diffs = [by[(d, s, a)] - by[(d, s, b)] for (d, s, m) in by if m == a and (d, s, b) in by]
    if not diffs:
        return None
    rnd = random.Random(0)
    means = sorted(sum(rnd.choice(diffs) for _ in diffs) / len(diffs) for _ in range(n_boot))
    return {"pairs": len(diffs), "mean": sum(diffs) / len(diffs), "lo": means[int(0.025 * n_boot)],
            "hi": means[int(0.975 * n_boot) - 1], "ahead": sum(x > 0 for x in diffs), "behind": sum(x < 0 for x in diffs)}


def report(results, args, load0, load1, wall) -> str:
    import pandas as pd
    rows = [r for x in results for r in x.get("rows", [])]
    tab = []
    for x in results:
        if "error" in x:
            tab.append({"design": x["design"], "options": "-", **{m: x["error"][:80] if m == "random" else "-" for m in MODES}})
            continue
        mean = {m: [r for r in x["rows"] if r["mode"] == m] for m in MODES}
        tot = x["rows"][0]["total"]
        tab.append({"design": x["design"], "options": x["options"], "points (l+b+t)": tot,
                    **{m: (f"{sum(r['points'] for r in v) / len(v):.1f}" if v else "-") for m, v in mean.items()},
                    "build s": x["build_s"], "s": x["seconds"]})
    lines = [header("Stimulus programs chosen vs random at an equal simulation budget (issue #60 item 2)",
                    {"machine load (1/5/15 min) before": load0, "after": load1, "wall time": f"{wall:.0f} s",
                     "settings": f"budget {args.budget} simulations, first {args.random} random, then steps of "
                                 f"{args.group} program runs; {args.seeds} seeds"}),
             "Mean points (line + branch + toggle) covered by the union after the budget, over seeds:", "",
             md_table(pd.DataFrame(tab)), "", "## Paired differences (points, per design and seed)", ""]
    for a, b in (("prog_random", "random"), ("prog_bandit", "random"), ("prog_policy", "random"),
                 ("prog_bandit", "prog_random"), ("prog_policy", "prog_random"), ("prog_policy", "prog_bandit")):
        for key in ("points", "all_points"):
            got = paired(rows, a, b, key)
            if got:
                lines.append(f"- {a} - {b} ({'line+branch+toggle' if key == 'points' else 'all types'}): "
                             f"{got['mean']:+.2f}, 95% CI [{got['lo']:+.2f}, {got['hi']:+.2f}] over {got['pairs']} "
                             f"pairs; ahead in {got['ahead']}, behind in {got['behind']}")
    return "\n".join(lines) + "\n"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--only", default="")
    ap.add_argument("--seeds", type=int, default=3)
    ap.add_argument("--budget", type=int, default=16)
    ap.add_argument("--random", type=int, default=8)
    ap.add_argument("--group", type=int, default=4)
    ap.add_argument("--no-policy", action="store_true")
    ap.add_argument("--policy-only", action="store_true", help="add the policy's rows (its own --seeds) to designs "
                    "already run without it: the policy scores the menu at minutes a step on the shared 2 cores")
    ap.add_argument("--report-only", action="store_true")
    args = ap.parse_args()
    RUNS.mkdir(parents=True, exist_ok=True)
    load0, t0 = " ".join(f"{x:.2f}" for x in os.getloadavg()), time.monotonic()
    only = [x.strip() for x in args.only.split(",") if x.strip()]
    todo = [d for d in DESIGNS if d[0] not in SKIP and (not only or d[0] in only)]
    policy = None
    results = []
    for label, *spec in todo:
        f = RUNS / f"{slug(label)}.json"
        old = json.loads(f.read_text()) if f.exists() else None
        if args.report_only or (old and (not args.policy_only or "error" in old
                                         or any(r["mode"] == "prog_policy" for r in old["rows"]))):
            if old:
                results.append(old)
            continue
        if policy is None and not args.no_policy:
            import torch
            torch.set_num_threads(1)
            from rtl_agent.policy import make_policy
            policy = make_policy("default")
        modes = ("prog_policy",) if args.policy_only else tuple(m for m in MODES if m != "prog_policy" or policy)
        try:
            x = design(label, spec, args.seeds, args.budget, args.random, args.group, policy, modes)
        except Exception as e:    # noqa: BLE001 - one design's failure is a row with its cause
            x = {"design": label, "error": f"{type(e).__name__}: {e}"[:300]}
        if old and "error" not in x:
            x = {**old, "rows": old["rows"] + x["rows"], "policy_seconds": x["seconds"]}
        print(label, x.get("error") or x["seconds"], flush=True)
        f.write_text(json.dumps(x, indent=1))
        results.append(x)
    load1 = " ".join(f"{x:.2f}" for x in os.getloadavg())
    rows = [r for x in results for r in x.get("rows", [])]
    if rows:
        write_rows(OUT / "cover_programs.csv", rows)
    write_with_reading(OUT / "cover_programs.md", report(results, args, load0, load1, time.monotonic() - t0))


if __name__ == "__main__":
    main()
