"""Evaluate all 50 RTLLM v2.0 references with their own testbenches on both PDKs.

Writes bench/results/rtllm_reference.{csv,md}. Run: .venv/bin/python bench/eda_reference.py
Runs twice: cold (empty evaluation cache) and warm (same cache), and reports both times.
"""
import argparse
import os
import sys
import tempfile
import time
from pathlib import Path

import pandas as pd
from rich.progress import track

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from bench.common import header, md_table  # noqa: E402
from designs import load_suite  # noqa: E402
from eda.flow import calibrate  # noqa: E402
from eda.pdk import PDKS  # noqa: E402
from eda.stages import STAGES as ALL_STAGES  # noqa: E402
from rtl_agent.executor import add_arguments, from_args, make_executor  # noqa: E402

OUT = Path(__file__).resolve().parent / "results"
STAGES = tuple(s for s in ALL_STAGES if s not in ("interface", "equiv"))   # no reference given: no equivalence


def one(job):
    task, pdk = job
    t = time.monotonic()
    rep = calibrate(task.flow_job(pdk, equiv=False), task.reference_sources())[1]
    row = {"design": task.name, "category": task.category, "pdk": pdk, "status": rep.status,
           "failed_stage": rep.failed_stage or "", "lint": rep.stages.get("lint").status if "lint" in rep.stages else "",
           "sim": rep.stages["sim"].status if "sim" in rep.stages else "not run",
           "simulator": (rep.stages["sim"].data.get("simulator") or "") if "sim" in rep.stages else "",
           "area_um2": rep.area_um2, "delay_ns": rep.delay_ns, "power_w": rep.power_w, "ppa": rep.ppa,
           "cached": rep.cached, "wall_s": time.monotonic() - t,
           "cause": "" if rep.ok else "; ".join(str(d) for d in rep.stages[rep.failed_stage].diagnostics[:1])[:160],
           "notes": " ".join(task.notes)[:200]}
    for s in STAGES:
        row[f"{s}_s"] = rep.stages[s].seconds if s in rep.stages and not rep.cached else 0.0
    return row


def sweep(tasks, jobs, label, executor=None):
    """Every (design, PDK) evaluation on `executor` (rtl_agent.executor; default a local pool of `jobs`),
    rows in a fixed order whatever order they finish in."""
    work = [(t, p) for t in tasks for p in PDKS]
    ex = executor or make_executor("local", jobs=jobs)
    t0 = time.monotonic()
    rows = list(track(ex.map(one, work), total=len(work), description=f"{label} ({ex.kind}, {jobs} workers)"))
    order = {(t.name, p): i for i, (t, p) in enumerate(work)}
    rows.sort(key=lambda r: order[(r["design"], r["pdk"])])
    return pd.DataFrame(rows), time.monotonic() - t0


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--jobs", type=int, default=2)
    add_arguments(ap)      # --executor local|ray, --ray-address (a Ray cluster: one task per evaluation)
    args = ap.parse_args()
    os.environ["RTL_AGENT_CACHE"] = tempfile.mkdtemp(prefix="rtla-bench-cache-")   # cold start, kept for warm
    tasks = load_suite("rtllm")
    ex = from_args(args, jobs=args.jobs)
    cold, t_cold = sweep(tasks, args.jobs, "cold", ex)
    warm, t_warm = sweep(tasks, args.jobs, "warm", ex)
    assert (warm["status"].values == cold["status"].values).all(), "warm run disagrees with cold run"
    OUT.mkdir(exist_ok=True)
    cold.to_csv(OUT / "rtllm_reference.csv", index=False)
    n = len(cold)
    nan = cold[cold.pdk == "nangate45"]
    sim_pass = int((nan.sim == "pass").sum())
    stage_tot = {s: cold[f"{s}_s"].sum() for s in STAGES}
    tot = sum(stage_tot.values())
    md = [header("RTLLM v2.0 references through the EDA core", {"workers": args.jobs, "executor": ex.kind}), ""]
    md.append(f"- references passing their own testbench: **{sim_pass}/{len(nan)}** "
              f"(Icarus {int(((nan.sim == 'pass') & (nan.simulator == 'icarus')).sum())}, "
              f"Verilator {int(((nan.sim == 'pass') & (nan.simulator == 'verilator')).sum())})")
    for p in PDKS:
        sub = cold[cold.pdk == p]
        md.append(f"- {p}: PPA reported for {int(sub.ppa.notna().sum())}/{len(sub)} "
                  f"(synthesized {int(sub.area_um2.notna().sum())})")
    md.append(f"- cold run: {n} evaluations in {t_cold:.1f} s = {n / t_cold * 60:.0f} evaluations/min")
    md.append(f"- warm run (cache): {n} evaluations in {t_warm:.2f} s")
    md.append("- time share of stages (cold, summed over workers): " +
              ", ".join(f"{s} {100 * v / tot:.1f}%" for s, v in stage_tot.items()))
    fails = nan[nan.sim != "pass"]
    md += ["", "## References that do not pass their testbench", ""]
    md += [f"- **{r.design}**: sim {r.sim} ({r.simulator or 'no simulator'}): {r.cause} {r.notes}" for r in fails.itertuples()]
    nosyn = cold[cold.ppa.isna()]
    md += ["", "## No PPA", ""]
    md += [f"- **{r.design}** / {r.pdk}: failed at {r.failed_stage}: {r.cause}" for r in nosyn.itertuples()]
    cols = ["design", "pdk", "lint", "sim", "simulator", "area_um2", "delay_ns", "power_w", "ppa",
            "lint_s", "sim_s", "synth_s", "sta_s"]
    md += ["", "## Per design", "", md_table(cold[cols])]
    (OUT / "rtllm_reference.md").write_text("\n".join(md))
    print("\n".join(md[:12]))


if __name__ == "__main__":
    main()
