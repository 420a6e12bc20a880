"""The stimulus chooser trained on verified outcomes against random choice (issue #60 items 2-3).

  collect  on the TRAINING split (corpus modules that are not the held-out 14, and modules written fresh by
           bench/cover_choice_gen.py): after 8 constrained-random runs, every program option once (state A),
           then every option again on the union of all of them (state B); each option's gain (line, branch and
           toggle points it reaches first) with the state's hole features -> runs/bench/cover_choice/train/
  fit      ridge over holes x option features (rtl_agent/jobs/cover/stim_chooser.py) ->
           rtl_agent/adapters/stim_chooser/weights.json
  eval     on the HELD-OUT 14 corpus modules of cover_programs.md, never seen in fitting, 3 seeds, budget 16:
           constrained random alone, 8 random + 8 program runs (2 steps of 4) chosen at random among the same
           options, by the frozen chooser, by the chooser with its test-time update -> cover_choice.{md,csv}

    nice -n 10 .venv/bin/python bench/cover_choice.py collect|fit|eval|report [--only a,b] [--seeds 3]
"""
import argparse
import json
import os
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.common import header, md_table, write_rows, write_with_reading  # noqa: E402
from bench.cover_programs import SKIP, TYPES, cached_runs, covered, paired, slug  # noqa: E402
from bench.real_designs import AXI, AXIS, DESIGNS, files_of  # noqa: E402
from rtl_agent.jobs.cover.stim_chooser import features  # noqa: E402

OUT = Path(__file__).resolve().parent / "results"
RUNS = Path(__file__).resolve().parent.parent / "runs" / "bench" / "cover_choice"
TMP = Path("/tmp/helperV/tasks")
I2C, SERV = "corpus/verilog-i2c/rtl", "corpus/serv/rtl"
# corpus modules of the training split: none is a held-out module or wraps one (axis_pipeline_register wraps
# axis_register; picorv32_pcpi_fast_mul is pcpi_mul's twin: both left out)
TRAIN = [(m, AXIS, f"{m}.v", m, {}) for m in ("axis_cobs_decode", "axis_demux", "axis_mux", "axis_broadcast",
                                               "axis_frame_len", "axis_frame_length_adjust", "axis_stat_counter",
                                               "axis_tap", "axis_crosspoint", "axis_ll_bridge")] + \
        [(m, I2C, f"{m}.v", m, {}) for m in ("i2c_master", "i2c_slave", "i2c_single_reg")] + \
        [(m, SERV, f"{m}.v", m, {}) for m in ("serv_decode", "serv_compdec", "serv_state", "serv_ctrl", "serv_csr")] + \
        [(m, AXI, f"{m}.v", m, {}) for m in ("axil_reg_if", "axil_dp_ram")]
HELD_OUT = [d for d in DESIGNS if d[0] not in SKIP]
MODES = ("random", "prog_random", "prog_frozen", "prog_ttt")


def task_of(label, folder, top_file, top, params, text=None):
    from designs import load_task
    from designs.adhoc import write_task
    from eda.config import require_shared
    from eda.design_inputs import gather
    texts = {f"{top}.v": text} if text else gather(files_of(require_shared(folder), top_file), params=params, top=top)
    return load_task(write_task(texts, top, TMP / slug(label)))


def setup(task):
    """(sources, fsms, limits, interfaces, options, inputs) of a task."""
    from eda import fsm
    from rtl_agent.jobs.cover import CoverConfig
    from rtl_agent.jobs.cover import programs as P
    from rtl_agent.jobs.cover.env import _limits
    src = task.reference_sources()
    fsms = fsm.extract(src, task.top) if task.clock else []
    ifc, opts = P.menu(task)
    return src, fsms, _limits(CoverConfig()), ifc, opts, {p.name for p in task.ports if p.direction == "input"}


def random_runs(task, src, fsms, lim, seeds):
    from eda import coverage as cov
    from rtl_agent.jobs.cover import CoverConfig, random_text
    args = [[f"+seed={s * 1000 + k}"] for s, n in seeds for k in range(n)]
    res = cov.coverage_runs(src, task.top, random_text(task, CoverConfig(), src), args, limits=lim, clock=task.clock,
                            fsms=fsms)
    if all(not r.ok for r in res):
        raise RuntimeError(f"random testbench: {res[0].status}: " + "; ".join(str(d) for d in res[0].diagnostics[:2])[:300])
    return res


def new_points(db, r) -> int:
    if not r.ok:
        return 0
    seen = {p.key for p in db.points.values() if p.count > 0}
    return len({p.key for p in r.points if p.count > 0 and p.type in TYPES} - seen)


def collect_one(label, spec, text=None, seed=0) -> dict:
    from eda import coverage as cov
    from eda import stim_programs as sp
    from rtl_agent.jobs.cover.stim_chooser import hole_items
    t0 = time.monotonic()
    task = task_of(label, *spec, text=text)
    src, fsms, lim, ifc, opts, inputs = setup(task)
    if not opts:
        return {"design": label, "error": "no program applies"}
    rnd = random_runs(task, src, fsms, lim, [(seed, 8)])
    db = cov.CoverageDB(src)
    for r in rnd:
        if r.ok:
            db.add(r.points)
    built = sp.Built(src, task.top, sp.testbench(ifc, task.ports, task.top, opts, task.period_ns), lim, fsms, task.clock)
    if built.error is not None:
        return {"design": label, "error": f"programs testbench: {built.error.status}"}
    states = []
    try:
        for drawn in (0, 1):
            items = hole_items(db, list(TYPES))
            res = [built.run(k, seed * 1000 + 500 + 100 * drawn + k) for k in range(len(opts))]
            states.append({"holes": items, "drawn": drawn,
                           "rows": [{"option": o.to_dict(), "gain": new_points(db, r), "ok": r.ok} for o, r in zip(opts, res)]})
            for r in res:
                if r.ok:
                    db.add(r.points)
    finally:
        built.close()
    return {"design": label, "options": len(opts), "interfaces": ifc.describe(), "states": states,
            "compared": sorted(ifc.dictionary), "inputs": sorted(inputs),
            "seconds": round(time.monotonic() - t0, 1)}


def collect(args):
    from bench.cover_choice_gen import gen_modules
    d = RUNS / "train"
    d.mkdir(parents=True, exist_ok=True)
    todo = [(label, spec, None) for label, *spec in TRAIN] + \
           [(name, (None, None, name, {}), text) for name, text in gen_modules(0).items()]
    for label, spec, text in todo:
        if args.only and label not in args.only.split(","):
            continue
        f = d / f"{slug(label)}.json"
        if f.exists():
            continue
        try:
            x = collect_one(label, spec, text)
        except Exception as e:      # noqa: BLE001 - one module's failure is a row with its cause
            x = {"design": label, "error": f"{type(e).__name__}: {e}"[:300]}
        f.write_text(json.dumps(x))
        print(label, x.get("error") or x["seconds"], flush=True)


def training_states(only=None):
    from eda.stim_programs import Option
    from rtl_agent.jobs.cover.stim_chooser import items_vec, option_vec
    out, used = [], []
    for f in sorted((RUNS / "train").glob("*.json")):
        x = json.loads(f.read_text())
        if "states" not in x or (only is not None and x["design"] not in only):
            continue
        used.append(x["design"])
        for s in x["states"]:
            hv = items_vec([tuple(h) for h in s["holes"]], x["compared"], x["inputs"])
            out.append((hv, [(option_vec(Option.from_dict(r["option"]), s["drawn"]), r["gain"])
                                     for r in s["rows"] if r["ok"]]))
    return out, used


def fit_cmd(args):
    from rtl_agent.jobs.cover.stim_chooser import StimChooser, fit
    states, used = training_states()
    w = fit(states, args.lam)
    rows = sum(len(r) for _, r in states)
    pos = sum(g > 0 for _, r in states for _, g in r)
    StimChooser(w, {"date": time.strftime("%Y-%m-%d"), "lambda": args.lam, "modules": used, "states": len(states),
                    "rows": rows, "positive": pos, "recipe": "bench/cover_choice.py collect + fit"}).save()
    print(f"fitted on {len(used)} modules, {len(states)} states, {rows} option runs ({pos} with a gain)")


def family_cv() -> list:
    """Leave one family out on the training split (a generated family's variants together, a corpus module
    alone): fitted without it, the summed gain of the chooser's top 4 options per state against 4 drawn at
    random (the expected value), over the states where some option paid."""
    from rtl_agent.jobs.cover.stim_chooser import StimChooser, fit
    fam = [(x, x.rsplit("_", 1)[0] if x.startswith("gen_") else x) for x in training_states()[1]]
    out = []
    for f in dict.fromkeys(f for _, f in fam):
        ch = StimChooser(fit(training_states({m for m, g in fam if g != f})[0]))
        for hv, rows in training_states({m for m, g in fam if g == f})[0]:
            if any(g for _, g in rows):
                top = sorted(rows, key=lambda r: -sum(a * b for a, b in zip(ch.w, features(hv, r[0]))))[:4]
                out.append({"family": f, "top4": sum(g for _, g in top), "random4": 4 * sum(g for _, g in rows) / len(rows),
                            "best": max(g for _, g in rows)})
    return out


def eval_one(label, spec, seeds, budget=16, rand_n=8, group=4, ch=None, modes=MODES, text=None) -> dict:
    import random as rnd_mod
    from eda import coverage as cov
    from eda import stim_programs as sp
    from rtl_agent.jobs.cover.stim_chooser import Bias, StimChooser, hole_vec
    ch = ch or StimChooser.load()
    t0 = time.monotonic()
    task = task_of(label, *spec, text=text)
    src, fsms, lim, ifc, opts, inputs = setup(task)
    res = random_runs(task, src, fsms, lim, [(s, budget) for s in range(seeds)])
    rnd = {(s, k): res[s * budget + k] for s in range(seeds) for k in range(budget)}
    built = sp.Built(src, task.top, sp.testbench(ifc, task.ports, task.top, opts, task.period_ns), lim, fsms, task.clock)
    if built.error is not None:
        raise RuntimeError(f"programs testbench: {built.error.status}")
    rows = []

    run = cached_runs(built)
    try:
        for s in range(seeds):
            for mode in modes:
                db = cov.CoverageDB(src)
                n_r = budget if mode == "random" else rand_n
                for k in range(n_r):
                    if rnd[(s, k)].ok:
                        db.add(rnd[(s, k)].points)
                drawn, bias, picks, step, ts = {}, Bias(), [], 0, time.monotonic()
                while mode != "random" and n_r + len(picks) < budget:
                    n = min(group, budget - n_r - len(picks))
                    hv = hole_vec(db, list(TYPES), ifc, inputs)
                    if mode == "prog_random":
                        idx = rnd_mod.Random(s * 7919 + step).sample(range(len(opts)), min(n, len(opts)))
                    else:
                        idx = ch.pick(opts, hv, n, drawn, bias if mode == "prog_ttt" else None)
                    results = [(i, ch.score(opts[i], hv, drawn.get(i, 0)), run(i, s, drawn.get(i, 0))) for i in idx]
                    bias.update([(opts[i].program, pr, new_points(db, r)) for i, pr, r in results])
                    for i, _, r in results:
                        drawn[i] = drawn.get(i, 0) + 1
                        if r.ok:
                            db.add(r.points)
                    picks += [opts[i].label for i in idx]
                    step += 1
                rows.append({"design": label, "seed": s, "mode": mode, "points": covered(db, TYPES),
                             "total": sum(1 for p in db.points.values() if p.type in TYPES), "all_points": covered(db),
                             "picks": " | ".join(picks), "choose_s": round(time.monotonic() - ts, 2)})
    finally:
        built.close()
    return {"design": label, "options": len(opts), "interfaces": ifc.describe(), "seconds": round(time.monotonic() - t0, 1),
            "rows": rows}


def eval_cmd(args):
    d = RUNS / "eval"
    d.mkdir(parents=True, exist_ok=True)
    for label, *spec in HELD_OUT:
        if args.only and label not in args.only.split(","):
            continue
        f = d / f"{slug(label)}.json"
        old = json.loads(f.read_text()) if f.exists() else None
        modes = tuple(m for m in args.modes.split(",") if m) or MODES
        if old and ("error" in old or not args.modes):
            continue
        try:
            x = eval_one(label, spec, args.seeds, modes=modes)
        except Exception as e:      # noqa: BLE001
            x = {"design": label, "error": f"{type(e).__name__}: {e}"[:300]}
        if old and "rows" in x:        # --modes: those modes' rows replaced, the others kept
            x = {**old, "rows": [r for r in old["rows"] if r["mode"] not in modes] + x["rows"]}
        f.write_text(json.dumps(x))
        print(label, x.get("error") or x["seconds"], flush=True)


def report(args):
    import pandas as pd
    from rtl_agent.jobs.cover.stim_chooser import WEIGHTS
    res = [json.loads(f.read_text()) for f in sorted((RUNS / "eval").glob("*.json"))]
    rows = [r for x in res for r in x.get("rows", [])]
    # cover_programs.py's bandit and LM rows ran the same random runs and program seeds: paired where its
    # random and prog_random rows equal these
    old = [r for f in sorted((RUNS.parent / "cover_programs").glob("*.json"))
           for r in json.loads(f.read_text()).get("rows", [])]
    mine = {(r["design"], r["seed"], r["mode"]): r["points"] for r in rows}
    same = all(mine.get((r["design"], r["seed"], r["mode"])) == r["points"] for r in old
               if r["mode"] in ("random", "prog_random")) and bool(old)
    extra = [{**r, "mode": r["mode"].replace("prog_policy", "prog_lm")} for r in old
             if same and r["mode"] in ("prog_bandit", "prog_policy")]
    tab = []
    for x in res:
        if "error" in x:
            tab.append({"design": x["design"], "options": "-", "random": x["error"][:70]})
            continue
        by = {m: [r["points"] for r in x["rows"] if r["mode"] == m] for m in MODES}
        tab.append({"design": x["design"], "options": x["options"], "points (l+b+t)": x["rows"][0]["total"],
                    **{m: f"{sum(v) / len(v):.1f}" for m, v in by.items() if v}, "s": x["seconds"]})
    meta = json.loads(WEIGHTS.read_text()).get("meta", {})
    lines = [header("Stimulus chooser trained on verified outcomes vs random choice (issue #60 items 2-3)",
                    {"machine load (1/5/15 min) at report": " ".join(f"{v:.2f}" for v in os.getloadavg()),
                     "settings": "budget 16 simulations: 8 constrained random, then 2 steps of 4 program runs; 3 seeds",
                     "training": f"{len(meta.get('modules', []))} modules ({meta.get('states')} states, "
                                 f"{meta.get('rows')} option runs, {meta.get('positive')} with a gain): "
                                 + ", ".join(meta.get("modules", []))}),
             "Held-out modules (never seen in fitting): mean line+branch+toggle points covered after the budget:", "",
             md_table(pd.DataFrame(tab)), "", "## Paired differences (points, per design and seed)", ""]
    for a, b in (("prog_ttt", "prog_random"), ("prog_frozen", "prog_random"), ("prog_ttt", "random"),
                 ("prog_frozen", "random"), ("prog_random", "random"), ("prog_ttt", "prog_frozen"),
                 ("prog_ttt", "prog_bandit"), ("prog_ttt", "prog_lm")):
        for key in ("points", "all_points"):
            got = paired(rows + extra, a, b, key)
            if got:
                lines.append(f"- {a} - {b} ({'line+branch+toggle' if key == 'points' else 'all types'}): "
                             f"{got['mean']:+.2f}, 95% CI [{got['lo']:+.2f}, {got['hi']:+.2f}] over {got['pairs']} "
                             f"pairs; ahead in {got['ahead']}, behind in {got['behind']}")
    lines.append(f"- prog_bandit and prog_lm (the LM scoring the menu, seed 0): cover_programs.py's rows, "
                 f"{'paired: its random and prog_random rows equal these' if same else 'NOT paired: its rows differ'}")
    cv = family_cv()
    lines += ["", "## Leave one family out on the training split (states where some option paid)", "",
              md_table(pd.DataFrame(cv).round(1)), "",
              f"Sum: chooser's top 4 {sum(r['top4'] for r in cv)}, 4 at random {sum(r['random4'] for r in cv):.1f} "
              "(gains of one option each, counted alone, so overlaps count twice)."]
    OUT.mkdir(exist_ok=True)
    if rows:
        write_rows(OUT / "cover_choice.csv", rows)
    write_with_reading(OUT / "cover_choice.md", "\n".join(lines) + "\n")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("cmd", choices=("collect", "fit", "eval", "report"))
    ap.add_argument("--only", default="")
    ap.add_argument("--seeds", type=int, default=3)
    ap.add_argument("--lam", type=float, default=1.0)
    ap.add_argument("--modes", default="", help="eval: rerun only these modes (comma-separated) on modules already run")
    args = ap.parse_args()
    {"collect": collect, "fit": fit_cmd, "eval": eval_cmd, "report": report}[args.cmd](args)


if __name__ == "__main__":
    main()
