"""Process isolation (bubblewrap) on the RTLLM reference run: same verdicts, and what it costs.

The 50 RTLLM v2.0 references x 2 PDKs (bench/eda_reference.py's evaluation), each evaluated with isolation
on and off back to back (order alternating), each mode with its own empty evaluation cache, so load drift
from other processes on the machine hits both modes alike. Also times one sandboxed launch of /bin/true.
Writes bench/results/isolation_overhead.{csv,md}. Run: .venv/bin/python bench/isolation_overhead.py
"""
import argparse
import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

import pandas as pd

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from bench.common import header, md_table  # noqa: E402
from designs import load_suite  # noqa: E402
from eda import sandbox  # noqa: E402

OUT = Path(__file__).resolve().parent / "results"
MODES = ("bwrap", "off")


def pair(job):
    """One reference on one PDK, evaluated in both modes back to back (order alternates by job), each mode
    with its own cold cache: a paired measurement that machine-load drift hits alike."""
    (task, pdk), i, caches = job
    from eda.cache import Cache
    from eda.flow import calibrate
    rows = []
    for mode in (MODES if i % 2 == 0 else MODES[::-1]):
        sandbox.set_isolation(mode)
        t = time.monotonic()
        rep = calibrate(task.flow_job(pdk, equiv=False, cache=Cache(Path(caches[mode]))),
                        task.reference_sources())[1]
        rows.append({"design": task.name, "pdk": pdk, "isolation": mode, "status": rep.status,
                     "failed_stage": rep.failed_stage or "",
                     "sim": rep.stages["sim"].status if "sim" in rep.stages else "not run",
                     "simulator": (rep.stages["sim"].data.get("simulator") or "") if "sim" in rep.stages else "",
                     "ppa": rep.ppa, "cached": rep.cached, "report_isolation": rep.isolation,
                     "wall_s": time.monotonic() - t,
                     **{f"{s}_s": rep.stages[s].seconds if s in rep.stages and not rep.cached else 0.0
                        for s in ("screen", "lint", "sim", "synth", "sta")}})
    return rows


def launch_cost(n=40) -> dict:
    """Median seconds of one `run(["true"])` per mode."""
    out = {}
    with sandbox.Sandbox() as sb:
        for mode in MODES:
            sandbox.set_isolation(mode)
            ts = []
            for _ in range(n):
                t = time.monotonic()
                sandbox.run(["true"], sb.path)
                ts.append(time.monotonic() - t)
            out[mode] = statistics.median(ts)
    return out


def main():
    from concurrent.futures import ProcessPoolExecutor
    from eda.pdk import PDKS
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--report-only", action="store_true", help="rewrite the .md from the last run's CSV/JSON")
    args = ap.parse_args()
    if args.report_only:
        return report()
    sandbox.set_isolation("bwrap")
    sandbox.check_isolation()
    tasks = load_suite("rtllm")
    caches = {m: tempfile.mkdtemp(prefix=f"rtla-iso-bench-{m}-") for m in MODES}   # cold, one per mode
    work = [((t, p), i, caches) for i, (t, p) in enumerate((t, p) for t in tasks for p in PDKS)]
    t0 = time.monotonic()
    with ProcessPoolExecutor(args.jobs) as ex:
        rows = [r for rs in ex.map(pair, work) for r in rs]
    total = time.monotonic() - t0
    sandbox.set_isolation("bwrap")
    launch = launch_cost()
    allr = pd.DataFrame(rows)
    OUT.mkdir(exist_ok=True)
    allr.to_csv(OUT / "isolation_overhead.csv", index=False)
    (OUT / "isolation_overhead.json").write_text(json.dumps({"total_s": total, "launch_s": launch, "jobs": args.jobs}))
    report()


def report():
    """bench/results/isolation_overhead.md from the CSV and JSON the run wrote (--report-only redoes it)."""
    allr = pd.read_csv(OUT / "isolation_overhead.csv")
    meta = json.loads((OUT / "isolation_overhead.json").read_text())
    total, launch = meta["total_s"], meta["launch_s"]
    key = ["design", "pdk"]
    cols = ["status", "failed_stage", "sim", "simulator"]
    on = allr[allr.isolation == "bwrap"].set_index(key).sort_index()
    off = allr[allr.isolation == "off"].set_index(key).sort_index()
    diff = [k for k in on.index if any(str(on.loc[k, c]) != str(off.loc[k, c]) for c in cols)
            or (pd.notna(on.loc[k, "ppa"]) != pd.notna(off.loc[k, "ppa"]))
            or (pd.notna(on.loc[k, "ppa"]) and abs(on.loc[k, "ppa"] - off.loc[k, "ppa"]) > 1e-9 * abs(off.loc[k, "ppa"]))]
    t_on, t_off = on.wall_s.sum(), off.wall_s.sum()
    overhead = (t_on - t_off) / t_off * 100
    ratio = (on.wall_s / off.wall_s).median()
    dt = (on.wall_s - off.wall_s).median()
    n = len(on)
    stage_cols = ["screen_s", "lint_s", "sim_s", "synth_s", "sta_s"]
    per_stage = allr.groupby("isolation")[stage_cols].sum().round(1).reset_index()
    md = [header("Process isolation (bubblewrap) on the RTLLM reference run",
                 {"workers": meta["jobs"], "bwrap": sandbox_version()}), ""]
    md += [f"- {n} evaluations (50 RTLLM v2.0 references x nangate45, sky130hd), each run twice back to back, "
           "isolation on and off (order alternating), each mode with its own cold evaluation cache (as in "
           "bench/eda_reference.py, the second PDK of a design reuses its mode's front-end entry)",
           f"- verdicts: isolation on passes {int((on.status == 'pass').sum())}/{n}, off "
           f"{int((off.status == 'pass').sum())}/{n}; "
           + ("identical status, failed stage, sim verdict, simulator and PPA for every evaluation" if not diff
              else f"{len(diff)} differ: {', '.join(f'{d}/{p}' for d, p in diff)}"),
           f"- reports say isolation={sorted(set(on.report_isolation))} with it on, "
           f"{sorted(set(off.report_isolation))} with it off",
           f"- overhead, median over the {n} paired evaluations: **{(ratio - 1) * 100:+.1f}%** per evaluation "
           f"({dt:+.2f} s): target <= 5% **{'met' if ratio <= 1.05 else 'MISSED'}**",
           f"- summed evaluation wall time: on {t_on:.1f} s, off {t_off:.1f} s ({overhead:+.1f}%); this sum is "
           "dominated by a few Verilator builds whose time swings by +-40 s with the machine's load, so the "
           f"median above is the figure to read; whole run {total:.0f} s",
           f"- one launch of /bin/true through eda.sandbox.run (median of 40): on {launch['bwrap'] * 1000:.1f} ms, "
           f"off {launch['off'] * 1000:.1f} ms",
           "- stage seconds, summed:", "", md_table(per_stage), "",
           f"Load average when the report was written: {os.getloadavg()[0]:.1f} / {os.getloadavg()[1]:.1f} / "
           f"{os.getloadavg()[2]:.1f} (1/5/15 min) on 2 cores: absolute times move with the machine's load; "
           "pairing each evaluation's two modes keeps drift out of the ratio. Where the time goes: each tool "
           "launch pays for bwrap's namespaces and mounts plus setpriv (the /bin/true launch above) and an "
           "evaluation launches 6-9 tools.",
           ""]
    (OUT / "isolation_overhead.md").write_text("\n".join(md))
    print("\n".join(md))


def sandbox_version() -> str:
    import subprocess
    try:
        return subprocess.run(["bwrap", "--version"], capture_output=True, text=True).stdout.strip()
    except OSError:
        return "missing"


if __name__ == "__main__":
    main()
