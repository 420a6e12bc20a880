"""Find rate: does optimize, with its default settings, find proven designs better than the reference?

For each task (the headroom tasks and every RTLLM design whose headroom-map ceiling is above its noise
floor, bench/results/headroom.json) and seed: one `optimize` run with the defaults (bundled model and
adapter, 5 steps x 1 parent x 4 samples, every action kind, the bandit), and with --frozen the same
run without training (the paired ttt-vs-frozen comparison, bench/ttt_vs_frozen.py's statistics).

A find: a candidate proven equivalent (its equivalence verdict `proven`), PPA ratio >= 1.10 and above
the design's noise floor (measured by the run itself, rtl_agent.noise) times its parent's ratio (so an edit
of an earlier find that keeps its PPA is not counted again). Per design: best ratio, found or
not, the share of its log-headroom recovered (log best / log ceiling), finds per action kind, and whether
the run's best design holds on the other PDK too (found_both_pdks: >= 1.10 there and above that PDK's own
noise floor; jobs/optimize/cross.py), which a gain that only steers one library's mapping does not.

    python bench/find_rate.py [--tasks a,b] [--seeds 2] [--frozen] [--name find_rate]

Runs live in runs/find_rate/<task>-<mode>-s<seed> and are resumed: an interrupted benchmark continues.
Writes bench/results/<name>.{md,csv,json}.
"""
from __future__ import annotations

import argparse
import json
import math
import os
import sys
import time
from pathlib import Path

os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import pandas as pd  # noqa: E402

from bench.common import header, md_table, write_with_reading, write_rows  # noqa: E402

RESULTS = ROOT / "bench" / "results"
FIND = 1.10


def ceilings() -> dict:
    """design -> (ceiling ratio on nangate45, noise floor, suite) from the headroom map; the floor is the
    map's own (bench.headroom_map.floors: five perturbation kinds)."""
    from bench.headroom_map import best, floors
    p = RESULTS / "headroom.json"
    if not p.exists():
        raise SystemExit(f"{p} is missing: run `python bench/headroom.py run` first")
    rows = json.loads(p.read_text())["rows"]
    fl = floors(rows)
    return {r["design"]: (best(r, "nangate45")[0], fl[r["design"]], r.get("suite", "")) for r in rows}


def default_tasks(ceil: dict) -> list[str]:
    """Project tasks with headroom above noise, then RTLLM designs with it."""
    up = [d for d, (c, nf, _) in ceil.items() if c > max(nf, 1.0) and c >= FIND]
    return sorted(d for d in up if ceil[d][2] == "project") + sorted(d for d in up if ceil[d][2] == "rtllm")


def run_one(task: str, mode: str, seed: int, base: Path, adapter: str = "") -> dict:
    from rtl_agent.jobs.optimize import OptimizeConfig, optimize
    out = base / f"{task}-{mode}-s{seed}"
    cfg = OptimizeConfig(task=task, out=str(out), seed=seed, train=(mode == "ttt"), resume=True,
                         **({"adapter": adapter} if adapter else {}))
    t0 = time.time()
    try:
        summ = optimize(cfg)
    except Exception as e:          # a task whose reference fails its flow: recorded, the bench goes on
        return {"task": task, "mode": mode, "seed": seed, "error": f"{type(e).__name__}: {e}"[:300]}
    got = {"wall_s": round(time.time() - t0, 1), "load": [round(x, 2) for x in os.getloadavg()],
           "best_kind": summ.get("best_kind")}
    (out / "bench.json").write_text(json.dumps(got))       # read back by finished(): the load it ran under
    return with_cross({**collect(out), "task": task, "mode": mode, "seed": seed, **got}, out)


def with_cross(r: dict, out: Path) -> dict:
    """A found run's best design on the other PDK (jobs/optimize/cross.py; kept in the run folder)."""
    if r.get("found") and "cross" not in r:
        from rtl_agent.jobs.optimize.cross import check_run
        try:
            r["cross"] = check_run(out, r["task"])
        except Exception as e:          # a task that no longer loads: said in the row, the report goes on
            r["cross"] = {"why": f"{type(e).__name__}: {e}"[:200]}
    return r


def holds_both(r: dict) -> bool:
    c = r.get("cross") or {}
    return bool(r.get("found") and c.get("holds") and (c.get("ratio") or 0) >= FIND)


def collect(out: Path) -> dict:
    """From a finished run's store: per-step best ratio, finds and their kinds, the noise floor."""
    from training.store import RunStore
    with RunStore(out / "run.sqlite") as st:
        steps = st.steps()
        env = steps[-1]["stats"]["state"]["env"]
        floor = (env.get("noise") or {}).get("floor", 1.0)
        per_step = [s["stats"]["metrics"].get("best_ratio") for s in steps[1:]]
        finds, valid, n = {}, 0, 0
        sv, sn = [0] * len(per_step), [0] * len(per_step)
        cands = st.candidates()
        # a find improves on its own parent (a one-line edit of an earlier find that keeps its PPA is not one)
        by_pool = {(c["payload"] or {}).get("pool_id"): (c["payload"] or {}).get("ratio") or 1.0 for c in cands}
        for c in cands:
            if c["step"] == 0 or c["step"] > len(per_step):
                continue
            n += 1
            sn[c["step"] - 1] += 1
            eda = (c["payload"] or {}).get("eda") or {}
            ratio = (c["payload"] or {}).get("ratio")
            kind = ((c["payload"] or {}).get("candidate") or {}).get("kind") or "?"
            proven = c["status"] == "pass" and _proven(eda)
            valid += int(proven)
            sv[c["step"] - 1] += int(proven)
            parent = by_pool.get(c["parent"], 1.0) or 1.0
            if proven and ratio and ratio >= FIND and ratio > floor * parent:
                finds[kind] = finds.get(kind, 0) + 1
    best = max([1.0] + [x for x in per_step if x])
    wall = steps[-1]["time"] - steps[0]["time"] if len(steps) > 1 else 0.0     # step 0 (the reference) onwards
    return {"best_ratio": best, "per_step": per_step, "run_s": round(wall, 1), "step_valid": sv, "step_samples": sn,
            "noise_floor": floor, "finds": finds, "valid": valid, "samples": n, "found": best >= FIND and best > floor}


def _proven(eda: dict) -> bool:
    from eda.report import Report, is_proven
    return is_proven(Report.from_dict(eda).equiv_status or "") if eda else False


def summarize(runs: list, ceil: dict) -> list[dict]:
    from bench.headroom_map import above
    rows = []
    for task in dict.fromkeys(r["task"] for r in runs):
        ok = [r for r in runs if r["task"] == task and "error" not in r]
        # the default (ttt) runs; a design run only frozen (--extra-mode frozen, for time) counts those, labelled
        mine = [r for r in ok if r["mode"] == "ttt"] or ok
        mode = mine[0]["mode"] if mine else ""
        c, nf, suite = ceil.get(task, (1.0, 1.0, ""))
        # a run judged with an older, lower floor: its find counts only above the current one
        mine = [{**r, "found": bool(r["found"] and above(r["best_ratio"], nf))} for r in mine]
        best = max([r["best_ratio"] for r in mine] or [1.0])
        kinds = {}
        for r in mine:
            for k, v in (r["finds"] if r["found"] else {}).items():
                kinds[k] = kinds.get(k, 0) + v
        rows.append({"task": task, "suite": suite, "mode": mode, "ceiling": round(c, 4), "noise_floor": round(nf, 4),
                     "best_ratio": round(best, 4), "found_runs": sum(r["found"] for r in mine),
                     "found_both_pdks": sum(holds_both(r) for r in mine),
                     "other_pdk_ratio": round(max([(r.get("cross") or {}).get("ratio") or 0 for r in mine
                                                   if r["found"]] or [0]), 4) or "", "runs": len(mine),
                     "recovered": round(math.log(best) / math.log(c), 3) if c > 1 and any(r["found"] for r in mine) else 0.0,
                     "finds_by_kind": json.dumps(kinds, sort_keys=True),
                     "errors": "; ".join(r["error"] for r in runs if r["task"] == task and "error" in r)})
    return rows


def geomean(xs) -> float:
    xs = [x for x in xs if x and x > 0]
    return math.exp(sum(map(math.log, xs)) / len(xs)) if xs else 1.0


def write_report(rows: list, runs: list, a, elapsed: float, ceil: dict):
    from bench.headroom_map import counted, geomean as gm
    rtllm = [d for d, (_, _, s) in ceil.items() if s == "rtllm"]
    ceil_all = gm([counted(c, nf) for c, nf, s in ceil.values() if s == "rtllm"])
    found = {}
    for r in rows:
        if r["found_runs"] > 0:
            found[r["task"]] = max(found.get(r["task"], 1.0), r["best_ratio"])
    got_all = gm([found.get(d, 1.0) for d in rtllm])
    proj = [r for r in rows if r["suite"] == "project"]
    rt = [r for r in rows if r["suite"] == "rtllm"]
    kinds = {}
    for r in rows:
        for k, v in json.loads(r["finds_by_kind"]).items():
            kinds[k] = kinds.get(k, 0) + v
    lines = [header("Find rate of optimize on designs with headroom", {
        "load at report": os.getloadavg(), "summed run wall time": f"{elapsed / 60:.1f} min",
        "settings": f"OptimizeConfig defaults (5 steps x 1 parent x 4 samples, actions auto), adapter "
                    f"{a.adapter or 'edit (the default)'}; seeds run "
                    f"{a.seeds_done}; {len(runs)} finished runs"}), "",
        f"A find: proven equivalent, PPA ratio >= {FIND} and above the design's noise floor.", "",
        f"- headroom tasks with a find: {sum(r['found_runs'] > 0 for r in proj)}/{len(proj)} (target: half); "
        f"with a find that also holds on the other PDK (found_both_pdks: Sky130 for a Nangate45 run, >= {FIND} "
        f"and above that PDK's own noise floor): {sum(r['found_both_pdks'] > 0 for r in proj)}/{len(proj)}",
        f"- RTLLM designs with a find: {sum(r['found_runs'] > 0 for r in rt)}/{len(rt)} tried (target: 5); "
        f"holding on the other PDK too: {sum(r['found_both_pdks'] > 0 for r in rt)}; "
        f"{sum(r['mode'] == 'frozen' for r in rt)} of them run frozen only (--extra-mode frozen)",
        f"- RTLLM geomean PPA ratio over {len(rtllm)} designs (1.0 where nothing found): {got_all:.3f}; "
        f"headroom-map ceiling {ceil_all:.3f}; published testbench-only result 1/0.349 = {1 / 0.349:.3f}",
        f"- finds (candidates) by action kind: {json.dumps(kinds, sort_keys=True)}", "",
        md_table(pd.DataFrame(rows)), ""]
    if a.frozen:
        both = {(r["task"], r["seed"]) for r in runs if r["mode"] == "ttt"} & \
            {(r["task"], r["seed"]) for r in runs if r["mode"] == "frozen"}
        fl = frozen_lines([r for r in runs if (r["task"], r["seed"]) in both]) if both else []     # pairs only
        lines += fl
        # another adapter's report (find_rate_<A>) has its own file; a run with no TTT/frozen pair writes none
        tvf = "ttt_vs_frozen_headroom" + a.name[len("find_rate"):] + ".md"
        if both:
            tv = RESULTS / tvf
            write_with_reading(tv, "\n".join(
                [header("TTT vs frozen policy on the headroom tasks, equal budget (bench/find_rate.py --frozen)",
                        {"load at report": os.getloadavg()}), "",
                 "Same settings, seeds and per-step sampling seeds in both modes (step 1 is the same draw); the "
                 "frozen run never updates the LoRA. best_ratio = PPA_ref / PPA of the best proven design so far.", ""]
                + fl))
    md = RESULTS / f"{a.name}.md"
    write_with_reading(md, "\n".join(lines))
    plot(rows, RESULTS / f"{a.name}.png")


def plot(rows: list, path: Path):
    """Per design: the ceiling of the headroom map beside the best proven design the model found."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    t = sorted(rows, key=lambda r: (r["suite"], -r["ceiling"]))
    fig, ax = plt.subplots(figsize=(max(8, len(t) * 0.3), 4))
    xs = list(range(len(t)))
    ax.bar([x - 0.2 for x in xs], [r["ceiling"] for r in t], 0.4, color="C7", label="ceiling (hand rewrite)")
    ax.bar([x + 0.2 for x in xs], [r["best_ratio"] for r in t], 0.4,
           color=["C2" if r["found_runs"] else "C0" for r in t], label="best found by the model (green: a find)")
    ax.scatter(xs, [r["noise_floor"] for r in t], color="C3", marker="_", s=80, label="noise floor", zorder=3)
    ax.axhline(1.0, color="k", lw=0.5)
    ax.set_xticks(xs, [r["task"] + ("*" if r.get("mode") == "frozen" else "") for r in t], rotation=90, fontsize=7)
    ax.set_yscale("log")
    ax.set_ylabel("PPA_ref / PPA (Nangate45)")
    ax.set_title("optimize find rate (* = frozen-policy run)", fontsize=9)
    ax.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(path, dpi=110)


def frozen_lines(runs: list) -> list[str]:
    from bench.ttt_vs_frozen import paired, verdict
    rows = []
    for r in runs:
        if "error" in r:
            continue
        for s, b in enumerate(r["per_step"], 1):
            rows.append({"task": r["task"], "seed": r["seed"], "mode": r["mode"], "step": s, "best_ratio": b or 1.0,
                         "valid": r["step_valid"][s - 1], "samples": r["step_samples"][s - 1]})
    last = max((r["step"] for r in rows), default=1)
    steps = sorted({r["step"] for r in rows})
    tab = []
    for s in steps:
        for m in ("ttt", "frozen"):
            xs = [r["best_ratio"] for r in rows if r["step"] == s and r["mode"] == m]
            tab.append({"step": s, "mode": m, "geomean_best_ratio": round(geomean(xs), 4), "runs": len(xs)})
    late = {m: [r for r in rows if r["mode"] == m and r["step"] > 1] for m in ("ttt", "frozen")}
    lv = {m: (sum(r["valid"] for r in late[m]), sum(r["samples"] for r in late[m])) for m in ("ttt", "frozen")}
    final = {m: [r["best_ratio"] for r in rows if r["mode"] == m and r["step"] == last] for m in ("ttt", "frozen")}
    return ["## TTT vs frozen at equal budget", "", md_table(pd.DataFrame(tab)), ""] + paired(rows, last) + \
        ["## Verdict", "", verdict(lv, final), ""]


def queue(tasks: list, seeds: int, frozen: bool, extra: list, extra_mode: str = "ttt") -> list[tuple]:
    """(task, mode, seed) in priority order: every task once (ttt, then frozen), the extra designs, then the
    other seeds; a bench stopped early still has the first comparisons whole."""
    q = [(t, "ttt", 0) for t in tasks] + ([(t, "frozen", 0) for t in tasks] if frozen else [])
    q += [(t, extra_mode, 0) for t in extra]
    for s in range(1, seeds):
        q += [(t, "ttt", s) for t in tasks] + ([(t, "frozen", s) for t in tasks] if frozen else [])
        q += [(t, extra_mode, s) for t in extra]
    return q


def finished(task: str, mode: str, seed: int, base: Path) -> dict | None:
    out = base / f"{task}-{mode}-s{seed}"
    if not (out / "run.sqlite").exists():
        return None
    from training.store import RunStore
    with RunStore(out / "run.sqlite") as st:
        done = (st.last_step() or 0) >= 5
    if not done:
        return None
    try:
        got = json.loads((out / "bench.json").read_text())
    except (OSError, ValueError):
        got = {}
    return with_cross({**collect(out), "task": task, "mode": mode, "seed": seed, **got}, out)


def _committed(name: str) -> list:
    p = RESULTS / f"{name}.json"
    try:
        return [r for r in json.loads(p.read_text()) if isinstance(r, dict) and "task" in r]
    except (OSError, ValueError):
        return []


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--tasks", default="", help="comma list (default: project tasks whose ceiling is above noise)")
    ap.add_argument("--extra", default="", help="more designs after the first pass (default: RTLLM designs whose "
                    "ceiling is above noise); 'none' for none")
    ap.add_argument("--seeds", type=int, default=2)
    ap.add_argument("--extra-mode", default="ttt", choices=("ttt", "frozen"),
                    help="the extra designs' runs: ttt (the default settings) or frozen (no LoRA step: a few "
                    "times faster on a CPU; the report labels them)")
    ap.add_argument("--frozen", action="store_true", help="also the --no-train run of each task (ttt vs frozen)")
    ap.add_argument("--worker", type=int, default=0, help="this process takes queue items worker, worker+workers, ...")
    ap.add_argument("--workers", type=int, default=1)
    ap.add_argument("--seed-from", type=int, default=0,
                    help="run only the queue's seeds >= this (earlier seeds keep their finished or committed rows)")
    ap.add_argument("--only-mode", default="", choices=("", "ttt", "frozen"),
                    help="run only the queue's runs of this mode (the others keep their finished or committed rows)")
    ap.add_argument("--report", action="store_true", help="only collect the finished runs and write the report")
    ap.add_argument("--adapter", default="", help="SFT adapter of the runs (default: optimize's, edit); another "
                    "one gets its own runs folder and report, find_rate_<adapter>")
    ap.add_argument("--runs", default="")
    ap.add_argument("--name", default="")
    a = ap.parse_args(argv)
    a.name = a.name or ("find_rate" + (f"_{a.adapter}" if a.adapter else ""))
    a.runs = a.runs or str(ROOT / "runs" / a.name)
    ceil = ceilings()
    up = default_tasks(ceil)
    tasks = [] if a.tasks == "none" else a.tasks.split(",") if a.tasks else \
        [d for d in up if ceil[d][2] == "project"]
    extra = [] if a.extra == "none" else a.extra.split(",") if a.extra else \
        sorted((d for d in up if ceil[d][2] == "rtllm"), key=lambda d: -ceil[d][0])     # largest headroom first
    q, base, t0 = queue(tasks, a.seeds, a.frozen, extra, a.extra_mode), Path(a.runs), time.time()
    if not a.report:
        for i, (task, mode, seed) in enumerate(q):
            if i % a.workers != a.worker or seed < a.seed_from or (a.only_mode and mode != a.only_mode):
                continue
            if finished(task, mode, seed, base):        # a re-run would overwrite its wall time and load
                continue
            r = run_one(task, mode, seed, base, a.adapter)
            print(f"[{(time.time() - t0) / 60:5.1f} min] {task} {mode} s{seed}: best "
                  f"{r.get('best_ratio')} finds {r.get('finds')} {r.get('error', '')}", flush=True)
        return 0
    # runs this machine no longer holds keep their committed rows (runs/ is not in git)
    kept = {(r["task"], r["mode"], r["seed"]): r for r in _committed(a.name)}
    runs = [r for r in (finished(*item, base) or kept.get(item) for item in q) if r]
    rows = summarize(runs, ceil)
    write_rows(RESULTS / f"{a.name}.csv", rows)
    (RESULTS / f"{a.name}.json").write_text(json.dumps(runs, indent=1))
    a.seeds_done = sorted({r["seed"] for r in runs})
    write_report(rows, runs, a, sum(r.get("wall_s") or r.get("run_s") or 0 for r in runs), ceil)
    return 0


if __name__ == "__main__":
    sys.exit(main())
