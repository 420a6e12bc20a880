"""Per-design optimize / cover runs over a suite (`--suite`), locally one after another or as Ray
tasks (`--executor ray`), then one summary.

    rtl-agent optimize --suite rtllm --executor ray --steps 5
    rtl-agent cover --suite designs --designs counter8,fsm_seq --budget 8

Each design gets its own run folder under the suite folder (optimize: OUT/<design>-s<seed>, cover:
OUT/<design>) with the resume semantics of a single run: --resume continues every design from its
last committed step (a finished design reports its result again). A Ray task that is retried after
its worker or node died resumes its own folder (it marks the folder with the suite run's id), so a lost
node costs the unfinished step, never a restart or a second copy. The driver writes the suite summary
(summary.json, summary.csv, summary.md) from what the jobs return.

A job gets the run's config (optimize: `rtl_agent.jobs.optimize.OptimizeConfig` with the design's task and run
folder filled in; cover: `rtl_agent.jobs.cover.CoverConfig` and the policy, threads and baseline) and runs
`rtl_agent.jobs.optimize.optimize` / `rtl_agent.jobs.cover.run_cover`: this module imports no command module.
"""
import datetime
import json
import re
import time
import traceback
import uuid
from dataclasses import replace
from pathlib import Path

from rtl_agent import executor as executors

MARK = ".suite-run"   # in a design's run folder: the id of the suite invocation that created it


def add_arguments(p):
    p.add_argument("--suite", default=None, metavar="SUITE",
                   help="run every design of a suite (rtllm | designs | verilog-eval | PATH), each in its own "
                        "run folder under --out, then write one summary; locally one after another, with "
                        "--executor ray as parallel Ray tasks")
    p.add_argument("--designs", default=None, help="with --suite: comma list, only these designs")
    executors.add_arguments(p)
    p.add_argument("--ray-cpus", type=float, default=1, metavar="N", help="CPUs per design job on Ray (default 1)")
    p.add_argument("--ray-gpus", default="auto", metavar="N",
                   help="GPUs per design job on Ray (default auto: 1 when the cluster has GPUs, else 0)")


def wants_suite(args) -> bool:
    return bool(getattr(args, "suite", None)) or getattr(args, "executor", "local") == "ray"


def _slug(s: str) -> str:
    return re.sub(r"[^A-Za-z0-9_.-]+", "_", s).strip("_")[:60]


def _claim(run_dir: Path, token: str, resume: bool) -> bool:
    """The resume flag for this attempt: as asked, or True when an earlier attempt of the same suite
    invocation (a Ray retry after a lost worker or node) already started this folder."""
    mark = run_dir / MARK
    if not resume and mark.is_file() and mark.read_text().strip() == token:
        return True
    if not resume:
        run_dir.mkdir(parents=True, exist_ok=True)
        if not mark.is_file():
            mark.write_text(token)
    return resume


def _attempt(kind, p, run_dir, body):
    t0 = time.time()
    try:
        res = body()
        return {"design": p["task"], "kind": kind, "status": "done", "dir": str(run_dir),
                "seconds": round(time.time() - t0, 1), **res}
    except Exception as e:   # noqa: BLE001 - one design's failure is its row, not the suite's end
        return {"design": p["task"], "kind": kind, "status": "error", "dir": str(run_dir),
                "seconds": round(time.time() - t0, 1), "error": f"{type(e).__name__}: {e}",
                "trace": traceback.format_exc()[-2000:]}


def optimize_job(p: dict) -> dict:
    """One design's optimization (or its resumption) in its own run folder; returns its summary.
    p["cfg"]: its OptimizeConfig (task and out are the design's)."""
    from rtl_agent.jobs.optimize import optimize
    run_dir = Path(p["out"])

    def body():
        cfg = p["cfg"]
        s = optimize(replace(cfg, resume=_claim(run_dir, p["_token"], cfg.resume)))
        return {k: s[k] for k in ("steps", "best_ratio", "best_ppa", "ref_ppa", "best_source", "best_step",
                                  "pool_size", "isolation") if k in s}
    return _attempt("optimize", p, run_dir, body)


def cover_job(p: dict) -> dict:
    """One design's coverage closure (or its resumption) in its own run folder; returns its summary.
    p["cfg"]: the run's CoverConfig; p["policy"], p["threads"], p["baseline"], p["resume"]: the CLI's."""
    from designs import load_task
    from rtl_agent.jobs import cover
    run_dir = Path(p["out"])

    def body():
        cfg = p["cfg"]
        if p.get("threads", 0) > 0 and not p["policy"].startswith(("openai:", "vllm:")):
            import torch
            torch.set_num_threads(p["threads"])
        s = cover.run_cover(load_task(p["task"]), run_dir, cfg, policy_spec=p["policy"],
                            resume=_claim(run_dir, p["_token"], p["resume"]), baseline=p["baseline"],
                            log=lambda *a, **k: None)
        return {"met": s["met"], "simulations": s["simulations"], "total_pct": s["total_pct"],
                "random_runs": s["random_runs"], "closed_by_model": s["attribution"]["model"],
                "coverage": {t: v["pct"] for t, v in s["coverage"].items()}, "accepted": len(s["accepted"]),
                "isolation": s.get("isolation")}
    return _attempt("cover", p, run_dir, body)


def run_suite(args, kind: str, cfg) -> int:
    """`rtl-agent optimize|cover --suite S [--executor ray]`: every design, one summary. `cfg`: the run's
    OptimizeConfig (each design's job gets a copy with its task and run folder) or CoverConfig."""
    from designs import load_suite, load_task
    if args.suite:
        tasks = load_suite(args.suite, only=args.designs)
        names = [t.name for t in tasks]
        label = _slug(Path(args.suite).name)
    elif args.task:
        names, label = [args.task], _slug(load_task(args.task).name)
    else:
        raise ValueError("give a TASK or --suite SUITE")
    if getattr(args, "task", None) and args.suite:
        raise ValueError("give either a TASK or --suite, not both")
    root = Path(args.out or (f"runs/optimize/{label}" if kind == "optimize" else f"runs/cover/suite-{label}"))
    root.mkdir(parents=True, exist_ok=True)
    token = uuid.uuid4().hex
    jobs = []
    for name in names:
        sub = f"{_slug(Path(name).name)}-s{args.seed}" if kind == "optimize" else _slug(Path(name).name)
        out = str((root / sub).resolve())
        if kind == "optimize":
            jobs.append({"task": name, "out": out, "_token": token, "cfg": replace(cfg, task=name, out=out)})
        else:
            jobs.append({"task": name, "out": out, "_token": token, "cfg": cfg, "policy": args.policy,
                         "threads": args.threads, "baseline": args.baseline, "resume": args.resume})
    ray_opts = {}
    if args.executor == "ray":
        ray_opts = {"num_cpus": args.ray_cpus, "memory_mb": args.ray_memory_mb or 4096}
    ex = executors.from_args(args, jobs=1, **ray_opts)
    if args.executor == "ray":
        gpus = args.ray_gpus
        if gpus == "auto":
            gpus = 1 if ex.ray.cluster_resources().get("GPU", 0) >= 1 else 0
        if float(gpus):
            ex.opts["num_gpus"] = float(gpus)
    fn = optimize_job if kind == "optimize" else cover_job
    t0 = time.monotonic()
    print(f"{kind}: {len(jobs)} design(s) on {ex.kind}" + (f" ({ex.opts})" if ex.kind == "ray" else "") +
          f"; run folders under {root}/", flush=True)
    rows = {}
    for r in ex.map(fn, jobs):
        rows[r["design"]] = r
        print(f"  {r['design']}: {_line(r)}", flush=True)
    rows = [rows[n] for n in names if n in rows]
    write_summary(root, kind, rows, {"suite": args.suite or args.task, "executor": ex.kind,
                                     "date": datetime.date.today().isoformat(),
                                     "wall_s": round(time.monotonic() - t0, 1)})
    print(f"summary: {root}/summary.md ({sum(r['status'] == 'done' for r in rows)}/{len(rows)} done)")
    return 0 if all(r["status"] == "done" for r in rows) else 1


def _line(r: dict) -> str:
    if r["status"] != "done":
        return f"error: {r['error']}"
    if r["kind"] == "optimize":
        return f"best PPA ratio {r['best_ratio']:.4f} after {r['steps']} step(s) ({r['seconds']:.0f} s)"
    return (f"{'target met' if r['met'] else 'target not met'}, {r['total_pct']}% after {r['simulations']} "
            f"simulation(s) ({r['seconds']:.0f} s)")


def write_summary(root: Path, kind: str, rows: list, meta: dict):
    import pandas as pd

    from rtl_agent.tables import md_table
    flat = [{k: (json.dumps(v) if isinstance(v, dict) else v) for k, v in r.items() if k != "trace"} for r in rows]
    df = pd.DataFrame(flat)
    df.to_csv(root / "summary.csv", index=False)
    (root / "summary.json").write_text(json.dumps({"meta": meta, "designs": rows}, indent=1, default=str))
    md = [f"# {kind} over {meta['suite']}", ""] + [f"- {k}: {v}" for k, v in meta.items()] + ["", md_table(df)]
    (root / "summary.md").write_text("\n".join(md) + "\n")
