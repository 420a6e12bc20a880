"""Where an optimize run's time goes on the corpus modules (issue 59), before and after the cost cuts: the reference
flow, the noise floor, the value ranges, and one step's candidates, each split by stage (lint, sim, equiv, synth,
sta: the time the stages actually ran, cache hits excluded).

    nice -n 10 .venv/bin/python bench/stage_times.py [--only axis_arb_mux,...] [--timeout-s 1500]

Each design is opened by the optimize environment itself (OptimizeEnv.open: reference, noise floor, value ranges)
and scored on one step's candidates without a model: the library's options on the reference (`--actions
transform --chooser exhaustive`: every option the library lists), the same candidates in both modes. Modes, each from a
cold cache of its own:
  before  every noise perturbation through the whole flow (the floor as measured until c8ee5f6), every candidate
          through the whole flow (screening off, the default);
  after   the noise floor as rtl_agent/noise.py measures it now, and screening (--screen: a candidate synthesized first,
          proven only when not worse than the best); then the floor once more, from its disk cache.
A design's rows are kept in bench/results/stage_times.json as soon as it finishes (a rerun skips it; runs resume).
Writes bench/results/stage_times.{csv,md,json}.
"""
import argparse
import json
import multiprocessing as mp
import os
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

OUT = Path(__file__).resolve().parent / "results"
SLOWEST = ("axil_register", "axis_srl_fifo", "axis_arb_mux", "axi_register", "axis_fifo DEPTH=16", "axis_cobs_encode")
STAGES = ("screen", "lint", "sim", "equiv", "synth", "sta")
PHASES = ("reference", "noise", "ranges", "step")


def _phase(text: str, current: str) -> str:
    """The phase an optimize `phase` event opens (its warnings and step notes stay in the current one)."""
    for prefix, phase in (("reference", "reference"), ("noise floor", "noise"), ("value ranges", "ranges"),
                          ("step", "step"), ("done", "done")):
        if text.startswith(prefix):
            return phase
    return current


def measure(label: str, mode: str, group: int, workdir: Path) -> dict:
    """One design in one mode, in this process: seconds per (phase, stage) that stages really ran, wall per phase."""
    os.environ["RTL_AGENT_CACHE"] = str(workdir / f"cache-{mode}")          # cold, this mode's own
    from eda import stages as stages_
    from rtl_agent import noise
    from rtl_agent.jobs.optimize import OptimizeConfig
    from rtl_agent.jobs.optimize import env as env_mod
    from training.loop import uniform_picks
    from training.rows import Context

    ran, wall, now = defaultdict(float), defaultdict(float), {"phase": "reference", "t": time.monotonic()}
    run = stages_.Stage.run

    def timed(self, ctx):                     # every stage that runs (a cache hit runs none)
        t0 = time.monotonic()
        try:
            return run(self, ctx)
        finally:
            ran[(now["phase"], self.name)] += time.monotonic() - t0
    stages_.Stage.run = timed

    def emit(kind, **data):
        if kind == "phase":
            t = time.monotonic()
            wall[now["phase"]] += t - now["t"]
            now.update(phase=_phase(data["phase"], now["phase"]), t=t)
    if mode == "before":                      # every perturbation through the whole flow
        env_mod.noise_floor = lambda job, src, top, ppa: noise._measure(job, src, top, ppa, noise.KINDS, prove_all=True)[0]
    measure_task(label, workdir)
    cfg = OptimizeConfig(task=str(workdir / "task"), actions="transform", chooser="exhaustive", choice_group=group,
                         kinds_per_parent=1, train=False, screen=mode == "after")
    e = env_mod.OptimizeEnv(cfg, workdir / f"run-{mode}")
    ctx = Context(workdir / f"run-{mode}", emit)
    now["t"] = time.monotonic()
    e.open(ctx)
    e.start(ctx)
    (g,) = e.groups(ctx, 1)
    emit("phase", phase="step")
    # no library option on the reference: no candidate (the transform kind falls back to a model edit)
    rows = e.score(ctx, 1, [g], [[e.extract(p.text, g) for p in uniform_picks(g, 1)]])[0] if g.choices else []
    emit("phase", phase="done")
    out = {"design": label, "mode": mode, "cells": (e.ref_report.stages["synth"].data or {}).get("cells"),
           "wall": {p: round(wall[p], 1) for p in PHASES}, "stages": {f"{p}/{s}": round(v, 2) for (p, s), v in ran.items()},
           "noise": e.noise.to_dict(), "candidates": len(rows), "statuses": [r.status for r in rows],
           "best_ratio": e.ref_ppa / e.best["ppa"]}
    if mode == "after":                       # a second run of the same design: the floor from the disk cache
        t0 = time.monotonic()
        again = noise.noise_floor(e.job, e.ref_src, e.task.top, e.ref_ppa)
        out["noise_again_s"], out["noise_again_cached"] = round(time.monotonic() - t0, 2), again.cached
    return out


def noise_only(label: str, workdir: Path, synth_wall_s: float) -> dict:
    """The reference flow and the noise floor alone, as measured now (twice: the second from the disk cache), with
    synthesis allowed synth_wall_s: on a loaded machine axis_cobs_encode's 16.5k cells overran the default 120 s."""
    os.environ["RTL_AGENT_CACHE"] = str(workdir / "cache-noise-only")
    from designs import load_task
    from eda.flow import calibrate
    from eda.sandbox import Limits
    from rtl_agent import noise
    measure_task(label, workdir)
    t = load_task(workdir / "task")
    job = t.flow_job(t.pdk).replace(limits={"synth": Limits(wall_s=synth_wall_s, cpu_s=int(2 * synth_wall_s), mem_mb=6144)})
    t0 = time.monotonic()
    job, rep = calibrate(job, t.reference_sources(), against_itself=True)
    out = {"design": label, "mode": "after, noise only", "reference_s": round(time.monotonic() - t0, 1),
           "reference_stages": {k: round(v.seconds, 1) for k, v in rep.stages.items()}, "status": rep.status}
    if rep.ok and rep.ppa:
        t0 = time.monotonic()
        out["noise"] = noise.noise_floor(job, t.reference_sources(), t.top, rep.ppa).to_dict()
        out["noise_s"] = round(time.monotonic() - t0, 1)
        t0 = time.monotonic()
        out["noise_again_cached"] = noise.noise_floor(job, t.reference_sources(), t.top, rep.ppa).cached
        out["noise_again_s"] = round(time.monotonic() - t0, 2)
    return out


def measure_task(label: str, workdir: Path):
    """The design's task folder (its files and -P parameters, as `optimize FILES` writes it), once."""
    from bench.real_designs import DESIGNS, files_of
    from designs.adhoc import write_task
    from eda.config import require_shared
    from eda.design_inputs import gather
    _, folder, top_file, top, params = next(d for d in DESIGNS if d[0] == label)
    if not (workdir / "task" / "task.yaml").exists():
        write_task(gather(files_of(require_shared(folder), top_file), params=params, top=top), top, workdir / "task")


def _child(q, *args):
    try:
        q.put(measure(*args))
    except Exception as ex:                   # a design that fails is a row with its cause, the bench goes on
        q.put({"design": args[0], "mode": args[1], "error": f"{type(ex).__name__}: {ex}"[:300]})


def one(label, mode, group, timeout_s, workdir) -> dict:
    """measure() in a child process (a fresh import: the monkeypatched stage timer and noise floor stay there)."""
    q = mp.get_context("spawn").Queue()
    p = mp.get_context("spawn").Process(target=_child, args=(q, label, mode, group, workdir))
    t0 = time.monotonic()
    p.start()
    p.join(timeout_s)
    if p.is_alive():
        p.kill()
        return {"design": label, "mode": mode, "error": f"stopped after {timeout_s} s"}
    got = q.get() if not q.empty() else {"design": label, "mode": mode, "error": f"exit {p.exitcode}"}
    return {**got, "total_s": round(time.monotonic() - t0, 1)}


def write(rows: list, out: Path = OUT):
    """stage_times.csv (one row per design, mode, phase and stage) and stage_times.md."""
    import pandas as pd
    from bench.common import header, md_table, write_rows, write_with_reading
    flat = []
    for r in rows:
        for p in PHASES:
            for st in STAGES:
                flat.append({"design": r["design"], "mode": r["mode"], "phase": p, "stage": st,
                             "seconds": r.get("stages", {}).get(f"{p}/{st}", 0.0), "phase_wall_s": r.get("wall", {}).get(p),
                             "load_before": " ".join(r.get("load_before", [])), "date": r.get("date", "")})
    if flat:
        write_rows(out / "stage_times.csv", flat)
    cols = ["design", "mode", "cells", "reference s", "noise floor s", "noise again s", "floor", "ranges+options s",
            "step s", "step stage s (summed over 2 workers)", "step candidates", "noise share of open + 5 steps",
            "noise share of the committed 5-step run's wall", "load before"]
    committed = {r["design"]: r.get("optimize_s") for r in json.loads((OUT / "real_designs_jobs.json").read_text())}
    table = []
    for r in rows:
        if "error" in r:
            table.append([r["design"], r["mode"], r["error"], *["-"] * (len(cols) - 4), " ".join(r.get("load_before", []))])
            continue
        w, st = r["wall"], r["stages"]
        run = w["reference"] + w["noise"] + w["ranges"] + 5 * w["step"]
        step = ", ".join(f"{s} {st.get(f'step/{s}', 0):.0f}" for s in STAGES[1:] if st.get(f"step/{s}"))
        statuses = ", ".join(f"{n} {k}" for k, n in sorted({x: r["statuses"].count(x) for x in r["statuses"]}.items()))
        table.append([r["design"], r["mode"], r.get("cells"), w["reference"], w["noise"],
                      r.get("noise_again_s", "-"), f"{r['noise']['floor']:.4f}", w["ranges"], w["step"], step,
                      statuses, f"{100 * w['noise'] / run:.0f}%",
                      f"{100 * w['noise'] / committed[r['design']]:.0f}%" if committed.get(r["design"]) else "-",
                      " ".join(r.get("load_before", []))])
    body = header("Stage times of an optimize run on the corpus modules, before and after the cost cuts (issue 59)",
                  {"note": "2-core machine shared with ~9 engineers; wall times under that load (column load before)"})
    body += ("\nRun: `nice -n 10 .venv/bin/python bench/stage_times.py` (docstring: what each mode runs). Stage seconds "
             "are the time stages actually ran (cache hits excluded). The run's wall is approximated as open + 5 x "
             "one step (no model: the step's candidates are the library's options on the reference); the last share "
             "divides by the wall of the 5-step run in real_designs_jobs.md (with the model, 600 s cap, load 3-4).\n\n")
    body += md_table(pd.DataFrame(table, columns=cols)) + "\n"
    write_with_reading(out / "stage_times.md", body)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--only", default=",".join(SLOWEST), help="comma list of design labels of bench/real_designs.py")
    ap.add_argument("--group", type=int, default=8,
                    help="the run's --choice-group (the exhaustive chooser still draws every option)")
    ap.add_argument("--timeout-s", type=int, default=1500, help="per design and mode")
    ap.add_argument("--modes", default="before,after")
    ap.add_argument("--out", default=str(OUT), help="folder of stage_times.{csv,md,json}")
    ap.add_argument("--noise-only", type=float, default=None, metavar="SYNTH_WALL_S",
                    help="only the reference flow and the noise floor as measured now, synthesis allowed this long")
    a = ap.parse_args()
    out = Path(a.out)
    out.mkdir(parents=True, exist_ok=True)
    path = out / "stage_times.json"
    done = json.loads(path.read_text()) if path.exists() else {"rows": [], "runs": []}
    base = Path(tempfile.mkdtemp(prefix="stage_times-"))
    if a.noise_only:
        for label in a.only.split(","):
            load = open("/proc/loadavg").read().split()[:3]
            row = {**noise_only(label, base / label.split()[0], a.noise_only), "load_before": load,
                   "load_after": open("/proc/loadavg").read().split()[:3],
                   "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())}
            print(json.dumps(row), flush=True)
            done.setdefault("noise_only", []).append(row)
            path.write_text(json.dumps(done, indent=1))
        return
    for label in a.only.split(","):
        for mode in a.modes.split(","):
            if any(r["design"] == label and r["mode"] == mode and "error" not in r for r in done["rows"]):
                continue
            load = open("/proc/loadavg").read().split()[:3]
            row = {**one(label, mode, a.group, a.timeout_s, base / label.split()[0]), "load_before": load,
                   "load_after": open("/proc/loadavg").read().split()[:3], "date": time.strftime("%Y-%m-%d %H:%M UTC",
                                                                                               time.gmtime())}
            print(json.dumps(row)[:400], flush=True)
            done["rows"] = [r for r in done["rows"] if not (r["design"] == label and r["mode"] == mode)] + [row]
            path.write_text(json.dumps(done, indent=1))
            write(done["rows"], out)


if __name__ == "__main__":
    main()
