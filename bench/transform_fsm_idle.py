"""The fsm_encode and idle transformation kinds through the real flow, on every project task and RTLLM v2.0 design
where they offer an option.

Per design and kind: every option of the reference goes through the task's flow (lint, simulation, equivalence
modulo the task's don't-cares, synthesis, STA on the task's PDK); then a greedy chain (what the optimizer's pool
does over steps): from the best proven design, that kind's options are listed again and evaluated, for --rounds
rounds, keeping the best proven improvement. Ratios are reference PPA / candidate PPA (higher is better), set
beside the design's noise floor and hand-written ceiling from bench/results/headroom.csv.

    .venv/bin/python bench/transform_fsm_idle.py [--designs a,b] [--kinds fsm_encode,idle] [--rounds 2]

Writes bench/results/transform_fsm_idle.{md,csv,json}.
"""
from __future__ import annotations

import argparse
import csv
import json
import os
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
from bench.common import header, md_table, write_rows, write_with_reading  # noqa: E402

RESULTS = ROOT / "bench" / "results"
KINDS = ("fsm_encode", "idle")


def _headroom() -> dict:
    try:
        with open(RESULTS / "headroom.csv") as f:
            return {r["design"]: r for r in csv.DictReader(f)}
    except OSError:
        return {}


def _tasks(only):
    from designs import load_suite
    tasks = load_suite("designs") + load_suite("rtllm", skip_missing=True)
    return [t for t in tasks if not only or t.name in only]


def _eval(job, task, code, ref_ppa):
    from eda.flow import evaluate
    from eda.report import is_proven
    t0 = time.monotonic()
    rep = evaluate(job, {f"{task.top}.v": code})
    proven = rep.ok and is_proven(rep.equiv_status or "")
    ratio = ref_ppa / rep.ppa if proven and rep.ppa else None
    return {"status": rep.status, "failed_stage": rep.failed_stage or "", "equiv": rep.equiv_status or "",
            "proven": proven, "ratio": ratio, "seconds": round(time.monotonic() - t0, 2)}


def run_kind(task, job, ref_ppa, code, kinds, rounds, rows):
    """Options of the kinds on the reference, then the greedy chain; returns the design's summary row."""
    from rtl_agent.transforms import Design, TransformError, apply, options
    t0 = time.monotonic()
    kind = "+".join(kinds)
    seen, chain, best_code, best_ratio = {code}, [], code, 1.0
    n_opts = n_proven = 0
    first_best = None
    for rnd in range(rounds + 1):
        d = Design(best_code, task.top)
        round_best = None
        for o in options(d, kinds_=kinds):
            try:
                new = apply(d, o)
            except TransformError as e:
                rows.append({"design": task.name, "kind": kind, "round": rnd, "option": o.label,
                             "status": "not applied", "failed_stage": str(e)[:80], "equiv": "", "proven": False,
                             "ratio": None, "seconds": 0})
                continue
            if new in seen:
                continue
            seen.add(new)
            r = _eval(job, task, new, ref_ppa)
            rows.append({"design": task.name, "kind": kind, "round": rnd, "option": o.label, **r})
            n_opts += 1
            n_proven += r["proven"]
            if r["proven"] and (round_best is None or r["ratio"] > round_best[0]):
                round_best = (r["ratio"], o.label, new)
        if rnd == 0:
            first_best = round_best
        if round_best is None or round_best[0] <= best_ratio * 1.001:
            break
        best_ratio, best_code = round_best[0], round_best[2]
        chain.append(round_best[1])
    return {"design": task.name, "suite": "project" if task.name in _project() else "rtllm", "kind": kind,
            "options": n_opts, "proven": n_proven,
            "best_single": round(first_best[0], 4) if first_best else None,
            "best_single_option": first_best[1] if first_best else "",
            "best_chain": round(best_ratio, 4) if chain else None, "chain": " ; ".join(chain),
            "seconds": round(time.monotonic() - t0, 1)}


def _project() -> set:
    return {p.name for p in (ROOT / "designs").iterdir() if (p / "task.yaml").exists()}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--designs", default="")
    ap.add_argument("--kinds", default=",".join(KINDS))
    ap.add_argument("--rounds", type=int, default=2, help="greedy chain rounds after the first")
    ap.add_argument("--out", default=str(RESULTS / "transform_fsm_idle"))
    ap.add_argument("--append", action="store_true", help="keep the designs the .csv files already hold, run the rest")
    ap.add_argument("--first", default="", help="comma-separated designs to run before the others")
    ap.add_argument("--report-only", action="store_true",
                    help="rewrite the .md from the .csv an interrupted run left (its load and time unknown)")
    a = ap.parse_args(argv)
    if a.report_only:
        with open(a.out + ".csv") as f:
            summary = [{k: (None if v == "" and k.startswith("best_") and k != "best_single_option" else v)
                        for k, v in r.items()} for r in csv.DictReader(f)]
        for r in summary:
            r["best_single"], r["best_chain"] = (float(r[k]) if r[k] else None for k in ("best_single", "best_chain"))
        load = " ".join(open("/proc/loadavg").read().split()[:3])
        meta = {"load_before": "unknown (interrupted run)", "load_after": load,
                "wall_s": "partial run", "skipped": [], "rounds": a.rounds}
        if Path(a.out + ".json").exists():       # a finished run: its own load and time
            meta = json.loads(Path(a.out + ".json").read_text())["meta"]
        write_with_reading(Path(a.out + ".md"), report(summary, meta))
        return 0
    from eda.flow import calibrate
    from rtl_agent.transforms import Design, options
    only = {x for x in a.designs.split(",") if x}
    kinds = [k for k in a.kinds.split(",") if k]
    load0, t0 = open("/proc/loadavg").read().split()[:3], time.monotonic()
    rows, summary, skipped = [], [], []
    if a.append:
        for name, lst in (("_options.csv", rows), (".csv", summary)):
            with open(a.out + name) as f:
                lst.extend(csv.DictReader(f))
        for r in summary:
            r["best_single"], r["best_chain"] = (float(r[k]) if r[k] else None for k in ("best_single", "best_chain"))
    done = {r["design"] for r in summary}
    first = [x for x in a.first.split(",") if x]
    tasks = sorted(_tasks(only), key=lambda t: first.index(t.name) if t.name in first else len(first))
    for task in [t for t in tasks if t.name not in done]:
        code = "".join(task.reference_sources().values())
        mine = [k for k in kinds if options(Design(code, task.top), kinds_=(k,))]
        if not mine:
            continue
        job, ref = calibrate(task.flow_job(), task.reference_sources(), against_itself=True)
        if not ref.ok or not ref.ppa:
            skipped.append(f"{task.name}: reference {ref.status} at {ref.failed_stage}")
            continue
        for ks in [(k,) for k in mine] + ([tuple(mine)] if len(mine) > 1 else []):
            s = run_kind(task, job, ref.ppa, code, ks, a.rounds, rows)
            s["pdk"] = job.pdk
            summary.append(s)
            print(json.dumps(s), flush=True)
        write_rows(Path(a.out + "_options.csv"), rows)
        write_rows(Path(a.out + ".csv"), summary)
    load1 = open("/proc/loadavg").read().split()[:3]
    meta = {"load_before": " ".join(load0), "load_after": " ".join(load1), "wall_s": round(time.monotonic() - t0),
            "skipped": skipped, "rounds": a.rounds}
    Path(a.out + ".json").write_text(json.dumps({"meta": meta, "summary": summary}, indent=1))
    write_with_reading(Path(a.out + ".md"), report(summary, meta))
    return 0


def report(summary, meta) -> str:
    hr = _headroom()
    head = header("Transformation kinds fsm_encode and idle through the real flow", {
        "load (1/5/15 min) before": meta["load_before"], "load after": meta["load_after"],
        "machine": "shared: 2 cores, 4 other agents working; run under flock /tmp/rtl-heavy.lock",
        "wall time": f"{meta['wall_s']} s", "greedy chain rounds": meta["rounds"]})
    rows = []
    for s in summary:
        h = hr.get(s["design"], {})
        best = max([x for x in (s["best_single"], s["best_chain"]) if x is not None], default=None)
        floor = float(h["noise_floor"]) if h.get("noise_floor") else None
        above = "" if best is None or floor is None else ("yes" if best > floor else "no")
        rows.append([s["design"], s["kind"], s["pdk"], s["options"], s["proven"], _f(s["best_single"]),
                     _f(s["best_chain"]), h.get("noise_floor", ""), above, h.get("best_n45", ""), h.get("kind", ""),
                     s["seconds"], (s["chain"] or s["best_single_option"])[:120]])
    cols = ["design", "kind", "pdk", "options", "proven", "best single", "best chain", "noise floor",
            "above noise", "hand ceiling (N45)", "hand kind", "time s", "chain (or best single option)"]
    import pandas as pd
    body = head + "\n" + md_table(pd.DataFrame(rows, columns=cols)) + "\n"
    if meta["skipped"]:
        body += "\nSkipped (reference did not pass its own flow): " + "; ".join(meta["skipped"]) + "\n"
    return body


def _f(x):
    return "" if x is None else f"{x:.3f}"


if __name__ == "__main__":
    os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
    sys.exit(main())
