"""Local process pool vs Ray executor on the RTLLM v2.0 reference run (50 designs x 2 PDKs), same run.

Writes bench/results/ray_executor.{md,csv}. Run: .venv/bin/python bench/ray_overhead.py
Each sweep is cold (its own empty evaluation cache). Order: local 2 workers, Ray 2 workers, Ray 1 worker,
local 1 worker (Ray runs on a private one-node cluster started here with 2 CPUs, 100 MB object store,
no dashboard; 1 worker = tasks of num_cpus=2). Also measures the per-task scheduling cost of Ray with
no-op tasks. The load average is sampled around each sweep: on a shared machine the numbers are noisy.
"""
import argparse
import os
import sys
import tempfile
import time
from pathlib import Path

import pandas as pd

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from bench.common import header, md_table  # noqa: E402
from bench.eda_reference import sweep  # noqa: E402
from bench.ray_cluster import LocalCluster  # noqa: E402
from designs import load_suite  # noqa: E402
from rtl_agent.executor import make_executor  # noqa: E402

OUT = Path(__file__).resolve().parent / "results"


def noop(x):
    return x


def sched_overhead(address: str, n: int = 200) -> dict:
    """Per-task cost of Ray with no-op tasks: batch throughput (n at once) and one-at-a-time latency."""
    ex = make_executor("ray", address=address, memory_mb=64)
    list(ex.map(noop, range(4)))                      # warm the workers
    t0 = time.monotonic()
    list(ex.map(noop, range(n)))
    batch = (time.monotonic() - t0) / n
    lat = []
    for i in range(20):
        t0 = time.monotonic()
        list(ex.map(noop, [i]))
        lat.append(time.monotonic() - t0)
    lat.sort()
    return {"batch_ms_per_task": 1000 * batch, "latency_ms_median": 1000 * lat[len(lat) // 2]}


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--designs", type=int, default=0, help="only the first N RTLLM designs (default all)")
    ap.add_argument("--skip-1", action="store_true", help="skip the 1-worker sweeps")
    ap.add_argument("--plan", default=None,
                    help="sweeps in order, e.g. ray2,local2 (default local2,ray2,ray1,local1; --skip-1: local2,ray2)")
    ap.add_argument("--name", default="ray_executor", help="output files bench/results/NAME.{md,csv}")
    args = ap.parse_args()
    tasks = load_suite("rtllm")
    if args.designs:
        tasks = tasks[:args.designs]
    os.environ["RAY_USAGE_STATS_ENABLED"] = "0"
    cluster = LocalCluster(nodes=[{"num_cpus": 2}], object_store_mb=100).start()
    runs, frames = [], {}
    try:
        plan = [("local", 2), ("ray", 2)] + ([] if args.skip_1 else [("ray", 1), ("local", 1)])
        if args.plan:
            plan = [(x.rstrip("0123456789"), int(x[len(x.rstrip("0123456789")):])) for x in args.plan.split(",")]
        for kind, w in plan:
            os.environ["RTL_AGENT_CACHE"] = tempfile.mkdtemp(prefix=f"rtla-ray-bench-{kind}{w}-")
            ex = make_executor(kind, address=cluster.address, jobs=w,
                               **({"num_cpus": 2 / w} if kind == "ray" else {}))
            l0 = os.getloadavg()[0]
            df, wall = sweep(tasks, w, f"{kind} cold", ex)
            l1 = os.getloadavg()[0]
            frames[(kind, w)] = df
            runs.append({"executor": kind, "workers": w, "evaluations": len(df), "wall_s": round(wall, 1),
                         "evals_per_min": round(len(df) / wall * 60, 1),
                         "task_s_sum": round(float(df.wall_s.sum()), 1), "load_before": round(l0, 1),
                         "load_after": round(l1, 1), "cached": int(df.cached.sum())})
            print(runs[-1], flush=True)
        sched = sched_overhead(cluster.address)
        print(sched, flush=True)
    finally:
        import ray
        ray.shutdown()
        cluster.stop()
    res = pd.DataFrame(runs)
    OUT.mkdir(exist_ok=True)
    res.to_csv(OUT / f"{args.name}.csv", index=False)
    cols = ["design", "pdk", "status", "sim", "simulator", "ppa"]
    a, b = frames[("local", 2)][cols].reset_index(drop=True), frames[("ray", 2)][cols].reset_index(drop=True)
    same = a.equals(b)
    w = {(r["executor"], r["workers"]): r for r in runs}
    ovh2 = 100 * (w[("ray", 2)]["wall_s"] / w[("local", 2)]["wall_s"] - 1)
    n = len(frames[("local", 2)])
    md = [header("Ray executor vs local process pool: RTLLM v2.0 references, 2 PDKs",
                 {"designs": len(tasks), "evaluations per sweep": n, "ray": __import__("ray").__version__}), ""]
    md += [md_table(res), ""]
    md.append(f"- same results (status, sim, simulator, PPA of all {n} evaluations), local vs Ray: **{same}**")
    md.append(f"- Ray overhead at 2 workers (wall time, cold): **{ovh2:+.1f}%** "
              f"({w[('ray', 2)]['wall_s']} s vs {w[('local', 2)]['wall_s']} s; target <= 10%)")
    md.append(f"- Ray scheduling cost per task (no-op tasks, 2-CPU cluster): {sched['batch_ms_per_task']:.1f} ms "
              f"per task in a batch of 200, {sched['latency_ms_median']:.1f} ms round trip for one task "
              f"(median of 20); per evaluation (wall difference / {n}): "
              f"{1000 * (w[('ray', 2)]['wall_s'] - w[('local', 2)]['wall_s']) / n:+.0f} ms")
    if ("ray", 1) in w and ("local", 1) in w:
        for kind in ("local", "ray"):
            s = w[(kind, 1)]["wall_s"] / w[(kind, 2)]["wall_s"]
            md.append(f"- {kind}: 1 -> 2 workers: {w[(kind, 1)]['evals_per_min']} -> {w[(kind, 2)]['evals_per_min']} "
                      f"evaluations/min (speedup {s:.2f}x on 2 cores)")
        ovh1 = 100 * (w[("ray", 1)]["wall_s"] / w[("local", 1)]["wall_s"] - 1)
        md.append(f"- Ray overhead at 1 worker: {ovh1:+.1f}%")
    md.append(f"- load average (1 min) around the sweeps: {', '.join(str(r['load_before']) for r in runs)} "
              "(other agents share these 2 cores)")
    (OUT / f"{args.name}.md").write_text("\n".join(md) + "\n")
    print("\n".join(md))


if __name__ == "__main__":
    main()
