"""The transformation library as the optimizer's engine: optimize runs per design and chooser, at equal
evaluation budgets, with the best proven ratio after N evaluations, the first find and its chain.

    python -m bench.transform_search --designs headroom --modes auto,frozen,random,exhaustive
    python -m bench.transform_search --designs rtllm --modes ttt --actions transform --out-name transform_rtllm

Modes: auto (the README's defaults: every action kind, the policy chooses, test-time training), ttt (the policy
chooses, training on), frozen (the same, --no-train), random (uniform over the same options), exhaustive (every
option of each selected parent once). Each run is `rtl-agent optimize` in its own folder under
runs/bench/transform_search/ (re-running resumes or reuses it); the report reads best.json and candidates.csv.
"""
from __future__ import annotations

import argparse
import csv
import json
import os
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from bench.common import header, write_with_reading

ROOT = Path(__file__).resolve().parent.parent
HEADROOM = ("dec_shift32", "fsm_onehot", "idle_pipe", "mac_dup", "mult8", "popcount16", "ripple_sum4",
            "shared_alu", "wide_count")
MODES = {"auto": [], "ttt": [], "frozen": ["--no-train"], "random": ["--chooser", "random"],
         "exhaustive": ["--chooser", "exhaustive"]}


def designs(which: str) -> list:
    if which == "headroom":
        return list(HEADROOM)
    if which == "rtllm":
        from designs import load_suite
        return [t.name for t in load_suite("rtllm")]
    return [d for d in which.split(",") if d]


def run_dir(base: Path, design: str, mode: str, args) -> Path:
    return base / (f"{design}-{mode}-s{args.seed}" + (f"-{args.pdk}" if args.pdk else "")
                   + (f"-g{args.choice_group}" if getattr(args, "choice_group", 0) else "")
                   + ("-mem" if getattr(args, "option_memory", False) else "")
                   + (f"-e{args.explore:g}" if getattr(args, "explore", 0) and mode in ("auto", "ttt", "frozen") else ""))


def run_one(design, mode, args, base: Path) -> dict:
    out = run_dir(base, design, mode, args)
    cmd = [sys.executable, "-m", "rtl_agent.cli", "optimize", design, "--out", str(out), "--seed", str(args.seed),
           "--steps", str(args.steps), "--quiet", "--no-cross-pdk", "--no-pnr", *MODES[mode]]
    if args.pdk:
        cmd += ["--pdk", args.pdk]
    if mode != "auto":
        cmd += ["--actions", args.actions]
    if args.choice_group:
        cmd += ["--choice-group", str(args.choice_group)]
    if args.option_memory:
        cmd.append("--option-memory")
    if args.explore and mode in ("auto", "ttt", "frozen"):
        cmd += ["--explore", str(args.explore)]
    if (out / "run.sqlite").exists():
        cmd.append("--resume")
    if args.lock:              # one heavy job at a time on a shared machine, taken per run so others interleave
        cmd = ["flock", args.lock, *cmd]
    t0 = time.time()
    r = subprocess.run(cmd, capture_output=True, text=True, cwd=ROOT)
    row = {"design": design, "mode": mode, "seed": args.seed, "seconds": round(time.time() - t0, 1),
           "rc": r.returncode, "error": "" if r.returncode == 0 else (r.stderr or r.stdout).strip()[-300:]}
    return {**row, **read_run(out, args.budget, design if args.cross_pdk else None)}


def read_run(out: Path, budget: int, cross_task: str | None = None) -> dict:
    """Best proven ratio overall and after `budget` distinct evaluated designs (a design drawn again is the
    cache's, not a new evaluation), the first find (above the run's noise floor, counted in distinct designs),
    and the best design's chain, from the run folder. With `cross_task`, a find is also synthesized on the
    other PDK (jobs/optimize/cross.py, kept in the run folder): does it hold there?"""
    from eda.hdl import normalise
    from training.store import RunStore
    best_p = out / "best.json"
    if not best_p.exists():
        return {}
    best = json.loads(best_p.read_text())
    floor = best.get("noise_floor") or 1.0
    with RunStore(out / "run.sqlite") as st:
        allc = st.candidates()
    cands = [c for c in allc if c["step"] > 0]
    ref = next((((c["payload"] or {}).get("eda") or {}) for c in allc if c["status"] == "reference"), {})
    rep = best.get("report") or {}
    ad = (ref["area_um2"] * ref["delay_ns"]) / (rep["area_um2"] * rep["delay_ns"]) \
        if all((x.get("area_um2") or 0) * (x.get("delay_ns") or 0) > 0 for x in (ref, rep)) else None
    seen, ratios = set(), []       # one entry per distinct design evaluated, in order
    for c in cands:
        key = normalise(c["text"]) if c["text"] else None
        if key is None or key in seen or c["status"] in ("duplicate", "apply"):
            continue
        seen.add(key)
        r = (c["payload"] or {}).get("ratio")
        ratios.append(float(r) if c["status"] == "pass" and r else 0.0)
    first = next((i + 1 for i, x in enumerate(ratios) if round(x, 4) > round(floor, 4)), None)
    # per step: the share of samples that are a new proven design above the noise floor (a design found again
    # earns at most 0: optimize's refind cap)
    steps = {}
    for c in cands:
        r = (c["payload"] or {}).get("ratio")
        hit = c["status"] == "pass" and bool(r) and round(float(r), 4) > round(floor, 4) and c["reward"] > 0
        steps.setdefault(c["step"], []).append(hit)
    rate = [round(sum(v) / len(v), 4) for _, v in sorted(steps.items())]
    return {**learning(out), "samples": len(cands), "evaluations": len(ratios),
            "best_ratio": round(max([1.0] + ratios), 4), "area_delay_ratio": round(ad, 4) if ad else None, f"best_at_{budget}": round(max([1.0] + ratios[:budget]), 4),
            "noise_floor": round(floor, 4), "above_noise": bool(best.get("above_noise")), "first_find_eval": first,
            "first_find_or_cap": first or len(cands) + 1, "find_rate_by_step": rate,
            "valid": sum(1 for x in ratios if x > 0), **other_pdk(out, best, cross_task),
            "chain": " > ".join(best.get("chain") or []) if best.get("source") != "reference" else ""}


def other_pdk(out: Path, best: dict, task: str | None) -> dict:
    """The find on the other PDK: its ratio there and whether it is above that PDK's noise floor."""
    from rtl_agent.jobs.optimize.cross import check_run
    if not best.get("above_noise"):
        return {}
    f = out / "cross_pdk.json"
    c = json.loads(f.read_text()) if f.exists() else (check_run(out, task, best["report"]["pdk"]) if task else None)
    if not c or c.get("ratio") is None:
        return {}
    return {"other_pdk": c["pdk"], "other_ratio": round(c["ratio"], 4), "other_floor": round(c["noise_floor"], 4),
            "holds_other": bool(c["holds"])}


def learning(out: Path) -> dict:
    """From the run's per-step metrics: groups trained of all, and over the trained choice groups the mean
    change the update made to the probability of the options that earned more than their group's mean."""
    from rtl_agent.jobs.optimize.report import training_summary
    from training.store import RunStore
    with RunStore(out / "run.sqlite") as st:
        steps = [s for s in st.steps() if s["step"] > 0]
        ms, t = [s["stats"].get("metrics") or {} for s in steps], training_summary(steps)
        groups, explored = {}, []
        for c in st.candidates():
            if c["step"] > 0:
                kind = (c["sample"] or {}).get("action_kind") or "?"
                groups.setdefault((c["step"], c["grp"], kind), []).append(c["reward"])
                if (c["sample"] or {}).get("explored"):
                    explored.append((c["step"], c["grp"], kind, c["reward"]))
    var, hollow = {}, 0
    for (_, _, kind), rs in groups.items():
        v = var.setdefault(kind, [0, 0])
        v[0] += max(rs) - min(rs) > 1e-12
        v[1] += 1
        # a group whose rewarded answers (above its mean) gained nothing: they only failed less than the rest
        hollow += max(rs) - min(rs) > 1e-12 and max(rs) <= 0
    sec = {k: round(sum((m.get("seconds") or {}).get(k, 0) for m in ms) / max(1, len(ms)), 1)
           for k in ("sample", "eval", "train")}
    # an explored draw (--explore) that earned more than its group's mean: what the policy alone would not try
    lifted = sum(1 for s, g, k, r in explored if r > sum(groups[s, g, k]) / len(groups[s, g, k]) + 1e-12)
    return {"s_per_step": f"{sec['sample']}/{sec['eval']}/{sec['train']}",
            "explored_above_mean": f"{lifted}/{len(explored)}" if explored else "",
            "groups_with_variance": " ".join(f"{k} {a}/{b}" for k, (a, b) in sorted(var.items())),
            "variance_without_gain": hollow,
            "trained_groups": f"{t['trained']}/{t['groups']}", "choice_groups_trained": t["choice_groups"],
            "dp_rewarded": round(t["dp_rewarded"], 4) if t["dp_rewarded"] is not None else None}


def paired(rows: list, a: str, b: str, key: str, n_boot: int = 2000, log: bool = True) -> dict | None:
    """Mode a minus mode b on `key` (the log of a ratio, or the value itself with log=False), paired by design
    and seed, with a bootstrap 95% CI."""
    import math
    import random
    f = math.log if log else float
    by = {(r["design"], r["seed"], r["mode"]): r for r in rows if r.get(key) is not None}
    diffs = [f(by[(d, s, a)][key]) - f(by[(d, s, b)][key]) for (d, s, m) in by if m == a and (d, s, b) in by]
    if not diffs:
        return None
    rnd = random.Random(0)
    means = sorted(sum(rnd.choice(diffs) for _ in diffs) / len(diffs) for _ in range(n_boot))
    return {"pairs": len(diffs), "mean": sum(diffs) / len(diffs), "lo": means[int(0.025 * n_boot)],
            "hi": means[int(0.975 * n_boot) - 1]}


def by_step(rows: list, modes: list) -> list:
    """Find rate per sample by step, the mean over each mode's runs, and TTT - frozen per step paired."""
    out = []
    for m in modes:
        rates = [r["find_rate_by_step"] for r in rows if r["mode"] == m and r.get("find_rate_by_step")]
        if rates:
            n = max(len(x) for x in rates)
            out.append(f"- {m}: find rate per sample by step " + ", ".join(
                f"{sum(x[k] for x in rates if len(x) > k) / sum(1 for x in rates if len(x) > k):.3f}" for k in range(n))
                + f" (over {len(rates)} runs)")
    if "ttt" in modes and "frozen" in modes:
        for k in range(max((len(r.get("find_rate_by_step") or ()) for r in rows), default=0)):
            got = paired([{**r, "_k": r["find_rate_by_step"][k]} for r in rows
                          if len(r.get("find_rate_by_step") or ()) > k], "ttt", "frozen", "_k", log=False)
            if got:
                out.append(f"  - step {k + 1}, ttt - frozen: {got['mean']:+.3f}, 95% CI [{got['lo']:+.3f}, "
                           f"{got['hi']:+.3f}] over {got['pairs']} pairs")
    return out


def write(rows: list, name: str, budget: int, modes: list, wall: float, wall_of: str = "this invocation"):
    res = ROOT / "bench" / "results"
    keys = ["design", "mode", "seed", "samples", "evaluations", "valid", f"best_at_{budget}", "best_ratio", "area_delay_ratio", "noise_floor",
            "above_noise", "other_ratio", "holds_other", "first_find_eval", "trained_groups", "groups_with_variance", "variance_without_gain", "dp_rewarded", "explored_above_mean", "s_per_step", "seconds", "chain", "error"]
    with (res / f"{name}.csv").open("w", newline="") as f:
        w = csv.DictWriter(f, keys, extrasaction="ignore")
        w.writeheader()
        w.writerows(rows)
    (res / f"{name}.json").write_text(json.dumps(rows, indent=1))
    lines = [header("Transformation library: optimize runs per design and chooser",
                    {"load": " ".join(open("/proc/loadavg").read().split()[:3]) + " (at report; shared machine)",
                     f"wall time of {wall_of}": f"{wall / 60:.1f} min",
                     "code": subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True,
                                            cwd=ROOT).stdout.strip()}), "",
             f"Finds count only when proven and above the run's noise floor. `evaluations`: distinct designs sent to "
             f"the flow; `best_at_{budget}`: the best proven ratio among the first {budget} of them. `trained_groups`: groups the LoRA update learned from, "
              "of all; `variance_without_gain`: groups with reward variance whose best answer gained nothing (it only "
              "failed less than the rest); `dp_rewarded`: over the trained choice groups, the mean change the update made to the "
              "probability of the options that earned more than their group's mean; `s_per_step`: mean seconds per "
              "step sampling/evaluating/training; `area_delay_ratio`: the reference's area x delay over the best "
              "design's (PPA's ratio without power).", ""]
    for m in modes:
        every = [r for r in rows if r["mode"] == m]
        got = [r for r in every if "best_ratio" in r]
        finds = [r for r in got if r["above_noise"]]
        gm = 1.0
        for r in every:        # a design the run could not start on (its reference fails the flow) counts 1.0
            gm *= (r["best_ratio"] if r.get("above_noise") else 1.0) ** (1 / max(1, len(every)))
        held = [r for r in finds if r.get("holds_other")]
        lines.append(f"- {m}: finds above noise on {len(finds)}/{len(every)} designs ({len(every) - len(got)} not run: "
                     f"no run folder, or the reference fails its own flow); geomean ratio over all {len(every)} "
                     f"(1.0 where none) {gm:.3f}" + (f"; {len(held)} of the {len(finds)} hold on the other PDK"
                                    if any("holds_other" in r for r in finds) else ""))
    for a, b in (("ttt", "frozen"), ("ttt", "random"), ("frozen", "random"), ("ttt", "exhaustive"),
                 ("frozen", "exhaustive")):
        got = paired(rows, a, b, f"best_at_{budget}")
        if got and a in modes and b in modes:
            lines.append(f"- {a} - {b}, log best_at_{budget}, paired by design and seed: mean {got['mean']:+.3f}, "
                         f"95% CI [{got['lo']:+.3f}, {got['hi']:+.3f}] over {got['pairs']} pairs")
    for a, b in (("frozen", "ttt"), ("random", "ttt"), ("random", "frozen")):
        got = paired(rows, a, b, "first_find_or_cap", log=False)
        if got and a in modes and b in modes:
            lines.append(f"- evaluations to the first find, {a} - {b} (positive: {b} finds earlier; no find counts as "
                         f"samples + 1): mean {got['mean']:+.2f}, 95% CI [{got['lo']:+.2f}, {got['hi']:+.2f}] over "
                         f"{got['pairs']} pairs")
    lines += by_step(rows, modes)
    lines += ["", "| " + " | ".join(keys) + " |", "|" + "---|" * len(keys)]
    lines += ["| " + " | ".join(str(r.get(k, "")) for k in keys) + " |" for r in rows]
    write_with_reading(res / f"{name}.md", "\n".join(lines) + "\n")


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--designs", default="headroom", help="headroom | rtllm | a comma list")
    ap.add_argument("--modes", default="auto,frozen,random,exhaustive")
    ap.add_argument("--actions", default="transform", help="action kinds of the non-auto modes")
    ap.add_argument("--steps", type=int, default=5)
    ap.add_argument("--budget", type=int, default=10, help="distinct evaluated designs for best_at_N")
    ap.add_argument("--choice-group", type=int, default=0,
                    help="options drawn per parent and step (default: optimize's); below a design's option count "
                         "the chooser decides which are evaluated, at or above it every option is")
    ap.add_argument("--option-memory", action="store_true", help="optimize --option-memory (folders suffixed -mem)")
    ap.add_argument("--explore", type=float, default=0.0,
                    help="optimize --explore of the policy modes (their folders suffixed -eSHARE; random and "
                         "exhaustive runs are shared with the runs without it)")
    ap.add_argument("--seeds", default="0", help="comma list: one run per design, mode and seed")
    ap.add_argument("--out-name", default="transform_search")
    ap.add_argument("--pdk", default="", help="the PDK of every run (default: each task's own)")
    ap.add_argument("--cross-pdk", action="store_true",
                    help="synthesize each find on the other PDK too: does it hold there (kept in the run folder)")
    ap.add_argument("--report-only", action="store_true", help="rebuild the report from the run folders")
    ap.add_argument("--lock", default="", help="a lock file each run holds (flock), e.g. /tmp/rtl-heavy.lock")
    ap.add_argument("--jobs", type=int, default=1,
                    help="runs at once (each its own process; set OMP_NUM_THREADS=1 so N jobs use N cores)")
    ap.add_argument("--runs", default="", help="the run folders' parent (default runs/bench/transform_search; "
                    "a fresh one, with a fresh RTL_AGENT_CACHE, measures the wall time from cold)")
    args = ap.parse_args(argv)
    modes = args.modes.split(",")
    base = Path(args.runs) if args.runs else ROOT / "runs" / "bench" / "transform_search"
    base.mkdir(parents=True, exist_ok=True)
    t0 = time.time()
    todo = [(d, int(x), m) for x in args.seeds.split(",") for d in designs(args.designs) for m in modes]
    runs = {job: argparse.Namespace(**{**vars(args), "seed": job[1]}) for job in todo}
    folders = {job: run_dir(base, job[0], job[2], a) for job, a in runs.items()}
    wall_of = "the runs (first event to last)" if args.report_only else f"this invocation ({args.jobs} at once)"
    wall = span(list(folders.values())) if args.report_only else None

    def one(job):
        (d, seed, m), a, out = job, runs[job], folders[job]
        return {"design": d, "mode": m, "seed": seed, "seconds": round(span([out]), 1),
                **read_run(out, a.budget, d if a.cross_pdk else None)} if a.report_only else run_one(d, m, a, base)

    rows = []
    with ThreadPoolExecutor(max(1, args.jobs)) as pool:      # the work is in child processes: threads suffice
        for row in pool.map(one, todo):                      # in order, so a partial report reads as before
            rows.append(row)
            print(json.dumps(row), flush=True)
            write(rows, args.out_name, args.budget, modes, wall if args.report_only else time.time() - t0, wall_of)

def span(folders: list) -> float:
    """Seconds from the first event to the last over the run folders: the runs' wall time, however the report
    is rebuilt (with --jobs the runs overlap, so this is not their sum)."""
    ts = []
    for f in folders:
        ev = f / "events.jsonl"
        if ev.exists():
            lines = ev.read_text().splitlines()
            if lines:
                ts += [json.loads(lines[0])["time"], json.loads(lines[-1])["time"]]
    return max(ts) - min(ts) if ts else 0.0


if __name__ == "__main__":
    os.environ.setdefault("PYTHONUNBUFFERED", "1")
    main()
