"""Coverage closure, random first then the model on the holes (`rtl-agent cover`), against the
plain constrained-random baseline at the SAME simulation budget, on the 61 designs of
bench/results/cover_rtllm.md (RTLLM v2.0 references + project tasks). Writes
bench/results/cover_closure{,_TAG}.{csv,md}.

    .venv/bin/python bench/cover_closure.py --workers 2                        # bundled model, no adapter
    .venv/bin/python bench/cover_closure.py --adapter default --tag sft --only-open   # same, SFT adapter
    nice -n 10 .venv/bin/python bench/cover_closure.py --tag formal --workers 1 --budget 12 --random-budget 12 \
        --patience 13 --formal-budget 60          # random then the formal phase; no model loads (random gets the budget)

Per design, in RUNS/<tag>/<design>: the baseline (`cover.run_baseline`: plain seeded_stimulus, +seed=0..B-1,
one build) and the job (`cover.run_cover`, budget B: random phase of at most --random-budget runs with
--patience, then groups of --group samples of --max-tokens from the policy, --no-train). The model
loads only in jobs random did not close. Run folders persist: re-running resumes (a finished design is
read back). --only-open: only the designs whose job in RUNS/bundled did not meet the target after the
random phase (where the model runs at all). FSM columns: states and arcs of the FSMs Yosys finds
(eda.fsm), measured in the same simulations, for the baseline and the job.

The formal phase (on unless --no-formal; eda.reach, after random and model): per design the points by
source (random / model / formal witness replayed / proven unreachable / undecided), whether every point is
covered or proven unreachable ("decided"), coverage over reachable points, and the formal phase's share of
the job's wall time. Written as cover_closure_formal.{csv,md} with --tag formal.
"""
import argparse
import inspect
import json
import multiprocessing as mp
import os
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import pandas as pd  # noqa: E402

from bench.common import header, md_table, write_rows  # noqa: E402
from designs import load_suite  # noqa: E402
from rtl_agent.jobs import cover  # noqa: E402

TYPES = ("line", "branch", "expr", "toggle", "fsm_state", "fsm_arc")


def _frac(ct) -> str:
    return f"{ct[0]}/{ct[1]}" if ct else ""


def job(p) -> dict:
    """One design: baseline then job (a worker process; torch on one thread)."""
    suite, name, a = p
    os.environ.setdefault("OMP_NUM_THREADS", "1")
    import torch
    torch.set_num_threads(1)
    t = next(x for x in load_suite(suite, only=name) if x.name == name)
    out = Path(a["runs"]) / a["tag"] / name
    cfg = cover.CoverConfig(target=cover.parse_target(a["target"]), budget=a["budget"], random_budget=a["random_budget"],
                            patience=a["patience"], group=a["group"], max_tokens=a["max_tokens"], seed=0,
                            train=not a["no_train"], formal=a["formal"], formal_budget_s=a["formal_budget"],
                            formal_point_s=a["formal_point"], target_of=a["target_of"])
    row = {"suite": suite, "task": name}
    try:
        t0 = time.monotonic()
        out.mkdir(parents=True, exist_ok=True)
        base = cover.run_baseline(t, t.reference_sources(), out, cfg)
        row["base_s"] = round(time.monotonic() - t0, 1)
        t1 = time.monotonic()
        kw = {"adapter": a["adapter"]} if "adapter" in inspect.signature(cover.run_cover).parameters else {}
        s = cover.run_cover(t, out, cfg, policy_spec="default", resume=(out / "run.sqlite").exists(), baseline=True,
                            log=lambda *x: None, **kw)
        row["job_s"] = round(time.monotonic() - t1, 1)
    except Exception as e:  # noqa: BLE001 - one design's failure is its row
        return {**row, "status": "error", "note": f"{type(e).__name__}: {e}"[:200]}
    bf = {k: tuple(v) for k, v in base["final"].items()}
    bdb_met = all((bf.get(k, (0, 0))[1] == 0 or 100 * bf[k][0] / bf[k][1] >= v - 1e-9) for k, v in cfg.target.items())
    row.update({"status": "done", "budget": cfg.budget, "base_total_pct": base["percent"], "base_met": bdb_met,
                "job_total_pct": s["total_pct"], "job_met": s["met"],
                "job_ge_base": s["total_pct"] >= base["percent"] - 1e-9,
                "random_runs": s["random_runs"], "model_samples": s["model_samples"],
                "model_ran": s["model_verdicts"].get("pass", 0), "model_no_code": s["model_verdicts"].get("extract", 0),
                "model_from_random": s["model_from_random"],
                "closed_by_model": s["attribution"]["model"], "vacuous": ",".join(s["vacuous"])})
    for k in TYPES:
        row[f"base_{k}"] = _frac(bf.get(k))
        row[f"job_{k}"] = _frac(s["all_types"].get(k))
    row["closed_points"] = "; ".join(c.split(" in uut")[0] for c in s["closed_by_model"][:4])
    row.update(_formal_cols(s, row))
    return row


def _formal_cols(s: dict, row: dict) -> dict:
    """The formal phase's columns: points by source, decided, reachable coverage, time share."""
    src, f = s.get("sources", {}), s.get("formal", {})
    fs = float(f.get("seconds") or 0.0)
    und = [e for e in s.get("points", []) if e["source"] in ("undecided", "open")]
    reasons = {}
    for e in und:
        r = (e.get("reason") or e["source"]).split(":")[0][:60]
        reasons[r] = reasons.get(r, 0) + 1
    return {"src_random": src.get("random", 0), "src_model": src.get("model", 0), "src_formal": src.get("formal", 0),
            "unreachable": src.get("unreachable", 0), "conflict": src.get("conflict", 0),
            "undecided": src.get("undecided", 0) + src.get("open", 0),
            "decided": src.get("undecided", 0) + src.get("open", 0) == 0, "reachable_pct": s.get("reachable_pct"),
            "witness_rejected": (f.get("counts") or {}).get("witness_rejected", 0), "formal_mode": f.get("mode") or "",
            "formal_s": round(fs, 1), "formal_share": round(fs / row["job_s"], 3) if row.get("job_s") else "",
            "formal_note": (f.get("error") or "")[:80] or "; ".join(f"{n} {r}" for r, n in reasons.items())[:160]}


def _designs(args) -> list:
    out = []
    for suite in ("rtllm", "designs"):
        for t in load_suite(suite):
            out.append((suite, t.name))
    if args.only:
        keep = set(args.only.split(","))
        out = [d for d in out if d[1] in keep]
    if args.only_open:
        def is_open(name):
            f = Path(args.runs) / "bundled" / name / "summary.json"
            return f.is_file() and json.loads(f.read_text())["model_samples"] > 0
        out = [d for d in out if is_open(d[1])]
    return out


def write_md(rows, args, path: Path, secs: float):
    done = [r for r in rows if r.get("status") == "done"]
    n = len(done)
    opened = [r for r in done if r["model_samples"]]
    tot = {
        "designs run": f"{n} ({len(rows) - n} errors)",
        "mean total coverage, baseline / job": (f"{sum(r['base_total_pct'] for r in done) / max(n, 1):.2f}% / "
                                                f"{sum(r['job_total_pct'] for r in done) / max(n, 1):.2f}%"),
        "target met, baseline / job": f"{sum(r['base_met'] for r in done)}/{n} / {sum(r['job_met'] for r in done)}/{n}",
        "job coverage >= baseline": f"{sum(r['job_ge_base'] for r in done)}/{n}"
                                    + (" (below: " + ", ".join(f"{r['task']} {r['job_total_pct']} vs {r['base_total_pct']}"
                                                               for r in done if not r["job_ge_base"]) + ")"
                                       if any(not r["job_ge_base"] for r in done) else ""),
        "designs the random phase closed (no model loaded)": f"{n - len(opened)}/{n}",
        "designs where the model ran": f"{len(opened)}",
        "model samples / ran / no usable statement": (f"{sum(r['model_samples'] for r in done)} / "
                                                      f"{sum(r['model_ran'] for r in done)} / "
                                                      f"{sum(r['model_no_code'] for r in done)}"),
        "samples continuing from the random state": f"{sum(r['model_from_random'] for r in done)}",
        "points closed by the model (designs)": (f"{sum(r['closed_by_model'] for r in done)} "
                                                 f"({sum(r['closed_by_model'] > 0 for r in done)} designs)"),
        "time per design, median / max (s)": _times(done),
    }
    cols = ["suite", "task", "base_total_pct", "job_total_pct", "base_met", "job_met", "random_runs", "model_samples",
            "model_ran", "closed_by_model"] + [f"job_{k}" for k in TYPES] + ["base_fsm_arc", "job_s", "closed_points"]
    text = (header(f"Coverage closure: random first, then the model on the holes ({args.tag})",
                   {"generated by": f"bench/cover_closure.py ({secs / 60:.0f} min, {args.workers} workers)",
                    "load": f"load average {os.getloadavg()[0]:.1f} at the end",
                    **({"carried": f"{sum(bool(r.get('carried')) for r in rows)} rows from the previous results file "
                                   "(--only reran the others)"} if any(r.get("carried") for r in rows) else {})})
            + f"\nBudget {args.budget} simulations per design for both; target `{args.target}`. Baseline: plain "
            "`seeded_stimulus` (+seed=0..B-1, 200 cycles). Job: random phase (styles fresh/held/toggling/corner+reset "
            "pulses, corners per field for inputs the DUT reads by slices, every other round of the four styles "
            "as long as the simulated-time limit allows (~98k cycles); "
            f"at most {args.random_budget} runs, patience {args.patience}), then groups of {args.group} samples x "
            f"{args.max_tokens} tokens from the bundled SmolLM2-135M (adapter `{args.adapter}`), "
            f"training {'off' if args.no_train else 'on'}.\n\n"
            + md_table(pd.DataFrame([[k, v] for k, v in tot.items()], columns=["", "value"])) + "\n\n## Per design\n\n"
            + md_table(pd.DataFrame([[r.get(c, "") for c in cols] for r in rows], columns=cols)) + "\n")
    path.write_text(text)


def write_formal_md(rows, args, path: Path, secs: float):
    """cover_closure_formal.md: the formal phase per design (sources, decided, reachable coverage, time)."""
    from eda import tools
    done = [r for r in rows if r.get("status") == "done"]
    n = len(done)
    ref = ROOT / "bench" / "results" / "cover_closure.csv"          # the 61 designs of cover_closure.md
    base61 = set(pd.read_csv(ref)["task"]) if ref.is_file() else set()
    d61 = [r for r in done if r["task"] in base61]

    def tot(k):
        return sum(int(r.get(k) or 0) for r in done)
    fs, js = sum(float(r.get("formal_s") or 0) for r in done), sum(float(r.get("job_s") or 0) for r in done)
    ftimes = sorted(float(r.get("formal_s") or 0) for r in done)
    allp = sum(tot(k) for k in ("src_random", "src_model", "src_formal", "unreachable", "conflict", "undecided"))
    summary = {
        "designs run": f"{n} ({len(rows) - n} errors)",
        "designs fully decided (every point covered or proven unreachable), the 61 of cover_closure.md "
        "(issue target >= 55/61)": f"{sum(_true(r.get('decided')) for r in d61)}/{len(d61)}",
        "designs fully decided, every design run (designs/ has grown since)":
            f"{sum(_true(r.get('decided')) for r in done)}/{n}",
        "not decided (of the 61)": ", ".join(r["task"] for r in d61 if not _true(r.get("decided"))) or "-",
        "points: all / random / model / formal witness / proven unreachable / undecided":
            f"{allp} / {tot('src_random')} / {tot('src_model')} / {tot('src_formal')} / {tot('unreachable')} / "
            f"{tot('undecided')}",
        "witnesses whose replay missed the point (not counted)": f"{tot('witness_rejected')}",
        "conflicts (reached only by model stimulus, proven unreachable from reset: not counted)": f"{tot('conflict')}",
        "mean coverage, all points / reachable points": (
            f"{sum(float(r['job_total_pct']) for r in done) / max(n, 1):.2f}% / "
            f"{sum(float(r.get('reachable_pct') or 0) for r in done) / max(n, 1):.2f}%"),
        "designs at 100% of reachable points": f"{sum(float(r.get('reachable_pct') or 0) >= 100 for r in done)}/{n}",
        "mean coverage of the 61, all points / reachable points": (
            f"{sum(float(r['job_total_pct']) for r in d61) / max(len(d61), 1):.2f}% / "
            f"{sum(float(r.get('reachable_pct') or 0) for r in d61) / max(len(d61), 1):.2f}%"),
        "clk2fflogic mode (witnesses replayed phase by phase)": ", ".join(r["task"] for r in done if r.get("formal_mode") == "fflogic") or "-",
        "formal share of the time (formal phase / (simulations + formal phase), sums)": _share(done, fs),
        "formal seconds per design, median / max": f"{ftimes[n // 2]:.1f} / {ftimes[-1]:.1f}" if n else "",
        "seconds per design, simulations + formal phase, median / max": _sum_times(done),
    }
    cols = ["suite", "task", "job_total_pct", "reachable_pct", "src_random", "src_model", "src_formal", "unreachable",
            "conflict", "undecided", "decided", "witness_rejected", "formal_mode", "sim_s", "formal_s", "formal_share",
            "formal_note"]
    text = (header("Coverage closure with the formal phase (random, model, then eda.reach)", {
        "abc": tools.version("yosys-abc"),
        "generated by": f"bench/cover_closure.py --tag {args.tag} ({secs / 60:.0f} min, {args.workers} worker(s))"
                        if secs else "bench/cover_closure.py --report-only (from the .csv of the runs below)",
        "command": getattr(args, "command", None) or " ".join(["nice -n 10 .venv/bin/python bench/cover_closure.py"]
                                                              + sys.argv[1:]),
        "load (uptime)": f"at the start: {getattr(args, 'uptime', '?')}; at the end: {_uptime()}"})
        + f"\nBudget {args.budget} simulations per design, target `{args.target}` (over {args.target_of} points); "
        f"random phase at most {args.random_budget} runs with patience {args.patience}, seeds 4-7 (and 12-15) "
        "long (~98k cycles, the simulated-time limit)"
        + (" (patience above the budget: random takes the whole budget and no model loads)"
           if args.patience > args.budget and args.random_budget >= args.budget else "")
        + f"; formal phase {'on' if args.formal else 'off'}, {args.formal_budget:g} s per design, at most "
        f"{args.formal_point:g} s of ABC per point, plus the Verilator builds replaying the witnesses (at most 40k characters of stimulus per build).\n\n"
        + md_table(pd.DataFrame([[k, v] for k, v in summary.items()], columns=["", "value"])) + "\n\n## Per design\n\n"
        + md_table(pd.DataFrame([[r.get(c, "") for c in cols] for r in rows], columns=cols)) + "\n")
    path.write_text(text)


def _fill_times(rows, args) -> list:
    """sim_s (the job's simulations: Verilator build + runs as each record has them, from run.sqlite) and the
    formal share formal_s / (sim_s + formal_s): a resumed job's own wall time holds no simulation."""
    from training.store import RunStore
    for r in rows:
        f = Path(args.runs) / args.tag / r["task"] / "run.sqlite"
        if r.get("status") != "done" or not f.is_file():
            continue
        with RunStore(f) as st:
            sims = cover._state(st)
        r["sim_s"] = round(sum(float(x.get("build_s") or 0) + float(x.get("run_s") or 0) for x in sims), 1)
        fs = float(r.get("formal_s") or 0)
        r["formal_share"] = round(fs / (r["sim_s"] + fs), 3) if r["sim_s"] + fs else ""
    return rows


def _share(done, fs) -> str:
    ss = sum(float(r.get("sim_s") or 0) for r in done)
    shares = sorted(float(r["formal_share"]) for r in done if str(r.get("formal_share", "")) not in ("", "nan"))
    med = f"; median per design {100 * shares[len(shares) // 2]:.0f}%" if shares else ""
    return f"{fs:.0f} s / ({ss:.0f} s + {fs:.0f} s) = {100 * fs / max(ss + fs, 1e-9):.1f}%{med}"


def _sum_times(done) -> str:
    ts = sorted(float(r.get("sim_s") or 0) + float(r.get("formal_s") or 0) for r in done)
    return f"{ts[len(ts) // 2]:.1f} / {ts[-1]:.1f}" if ts else ""


def _true(x) -> bool:
    return x is True or str(x) == "True"


def _uptime() -> str:
    import subprocess
    try:
        return subprocess.run(["uptime"], capture_output=True, text=True, timeout=5).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        return f"load average {os.getloadavg()[0]:.2f}"


def _times(done) -> str:
    ts = sorted(r["base_s"] + r["job_s"] for r in done)
    return f"{ts[len(ts) // 2]:.0f} / {ts[-1]:.0f}" if ts else ""


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--only", default="", help="comma list of designs")
    ap.add_argument("--only-open", action="store_true", help="only designs the bundled run's random phase left open")
    ap.add_argument("--target", default="line=95,branch=90,toggle=80")
    ap.add_argument("--budget", type=int, default=12)
    ap.add_argument("--random-budget", type=int, default=8)
    ap.add_argument("--patience", type=int, default=4)
    ap.add_argument("--group", type=int, default=8, help="samples per step (default 8: the model's share of the "
                    "budget in one step)")
    ap.add_argument("--max-tokens", type=int, default=128)
    ap.add_argument("--no-train", action="store_true", help="no LoRA step between groups (one group: nothing to train for)")
    ap.add_argument("--adapter", default="none", help="SFT adapter for the model: none | default | PATH")
    ap.add_argument("--tag", default="bundled")
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--formal", action=argparse.BooleanOptionalAction, default=True, help="the formal phase")
    ap.add_argument("--formal-budget", type=float, default=60.0, help="formal seconds per design")
    ap.add_argument("--formal-point", type=float, default=8.0, help="ABC seconds per point at most")
    ap.add_argument("--target-of", choices=("all", "reachable"), default="all")
    ap.add_argument("--runs", default=str(ROOT / "runs" / "bench-cover-closure"))
    ap.add_argument("--report-only", action="store_true", help="rewrite the .md from the .csv, run nothing")
    ap.add_argument("--command", default=None, help="with --report-only: the command lines that made the .csv")
    args = ap.parse_args(argv)
    if args.workers > 2:
        raise ValueError("--workers: at most 2 on this shared machine")
    args.uptime = _uptime()
    ds = _designs(args)
    name = "cover_closure" if args.tag == "bundled" else f"cover_closure_{args.tag}"
    out = ROOT / "bench" / "results" / name
    p = {k: getattr(args, k) for k in ("target", "budget", "random_budget", "patience", "group", "max_tokens",
                                       "adapter", "tag", "runs", "no_train", "formal", "formal_budget", "formal_point",
                                       "target_of")}
    rows, t0 = [], time.monotonic()
    if args.report_only:
        old = pd.read_csv(out.with_suffix(".csv")).astype(object)
        rows = _fill_times(old.where(old.notna(), "").to_dict("records"), args)
        write_rows(out.with_suffix(".csv"), rows)
        (write_formal_md if args.tag == "formal" else write_md)(rows, args, out.with_suffix(".md"), 0.0)
        return 0
    if args.only and out.with_suffix(".csv").is_file():
        # a partial rerun: the other designs' rows come from the results file, so it stays whole
        old = pd.read_csv(out.with_suffix(".csv")).astype(object)
        old = old.where(old.notna(), "").to_dict("records")
        rerun, known = {n for _, n in ds}, {r["task"] for r in old}
        rows = [{**r, "carried": True} for r in old if r["task"] not in rerun]
        ds_all = [(r["suite"], r["task"]) for r in old] + [d for d in ds if d[1] not in known]
    else:
        ds_all = ds
    order = {d[1]: i for i, d in enumerate(ds_all)}
    with mp.get_context("spawn").Pool(args.workers) as pool:
        for r in pool.imap_unordered(job, [(s, n, p) for s, n in ds]):
            rows.append(r)
            rows.sort(key=lambda r: order[r["task"]])
            print(f"{r['task']:24s} {r.get('status')} base {r.get('base_total_pct')} job {r.get('job_total_pct')} "
                  f"model {r.get('model_samples')} closed {r.get('closed_by_model')} {r.get('job_s')}s", flush=True)
            cols = sorted({k for x in rows for k in x}, key=lambda k: list(r).index(k) if k in r else 99)
            write_rows(out.with_suffix(".csv"), [{c: x.get(c, "") for c in cols} for x in rows])
            (write_formal_md if args.tag == "formal" else write_md)(rows, args, out.with_suffix(".md"),
                                                                  time.monotonic() - t0)
    return 0


if __name__ == "__main__":
    sys.exit(main())
