"""Process isolation (bubblewrap) on the RTLLM reference run: same verdicts, and what it costs.

The 50 RTLLM v2.0 references x 2 PDKs (bench/eda_reference.py's evaluation) run cold, each sweep with its
own empty evaluation cache, alternating isolation on and off (on, off, on, off, ...) so load drift from
other processes on the machine hits both modes alike. Also times one sandboxed launch of /bin/true.
Writes bench/results/isolation_overhead.{csv,md}. Run: .venv/bin/python bench/isolation_overhead.py
"""
import argparse
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

import pandas as pd

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from bench.common import header, md_table  # noqa: E402
from bench.eda_reference import sweep  # noqa: E402
from designs import load_suite  # noqa: E402
from eda import sandbox  # noqa: E402

OUT = Path(__file__).resolve().parent / "results"
MODES = ("bwrap", "off")


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
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--rounds", type=int, default=1, help="sweeps per mode (alternating)")
    args = ap.parse_args()
    sandbox.set_isolation("bwrap")
    sandbox.check_isolation()
    tasks = load_suite("rtllm")
    frames, times = [], {m: [] for m in MODES}
    for r in range(args.rounds):
        for mode in MODES:
            sandbox.set_isolation(mode)          # the workers inherit RTL_AGENT_ISOLATION
            os.environ["RTL_AGENT_CACHE"] = tempfile.mkdtemp(prefix=f"rtla-iso-bench-{mode}-")   # cold
            df, secs = sweep(tasks, args.jobs, f"round {r + 1} isolation={mode}")
            df["isolation"], df["round"] = mode, r + 1
            frames.append(df)
            times[mode].append(secs)
            print(f"round {r + 1} isolation={mode}: {len(df)} evaluations in {secs:.1f} s", flush=True)
    sandbox.set_isolation("bwrap")
    launch = launch_cost()
    allr = pd.concat(frames, ignore_index=True)
    OUT.mkdir(exist_ok=True)
    allr.to_csv(OUT / "isolation_overhead.csv", index=False)

    key = ["design", "pdk"]
    cols = ["status", "failed_stage", "sim", "simulator", "ppa"]
    per = {m: allr[(allr.isolation == m)] for m in MODES}
    base = per["off"][per["off"]["round"] == 1].set_index(key)[cols]
    diffs = []
    for (mode, rnd), df in allr.groupby(["isolation", "round"]):
        d = df.set_index(key)[cols]
        for k in base.index:
            a, b = base.loc[k], d.loc[k]
            if any((str(a[c]) != str(b[c])) for c in cols if c != "ppa") or (
                    pd.notna(a["ppa"]) != pd.notna(b["ppa"]) or
                    (pd.notna(a["ppa"]) and abs(a["ppa"] - b["ppa"]) > 1e-9 * abs(a["ppa"]))):
                diffs.append({"design": k[0], "pdk": k[1], "isolation": mode, "round": rnd,
                              **{f"{c}": b[c] for c in cols}, **{f"off_{c}": a[c] for c in cols}})
    on, off = sum(times["bwrap"]), sum(times["off"])
    overhead = (on - off) / off * 100
    stage_cols = [c for c in allr.columns if c.endswith("_s") and c != "wall_s"]
    per_stage = allr.groupby("isolation")[stage_cols].sum()
    n = len(tasks) * 2
    passed = {m: int((per[m][per[m]["round"] == 1].status == "pass").sum()) for m in MODES}
    md = [header("Process isolation (bubblewrap) on the RTLLM reference run",
                 {"workers": args.jobs, "rounds per mode": args.rounds, "bwrap": sandbox_version()}), ""]
    md += [f"- {n} evaluations (50 RTLLM v2.0 references x nangate45, sky130hd) per sweep, every sweep cold "
           "(its own empty evaluation cache), sweeps alternating isolation on / off",
           f"- verdicts: isolation on passes {passed['bwrap']}/{n}, off {passed['off']}/{n}; "
           f"{'identical status, failed stage, sim verdict, simulator and PPA in every sweep' if not diffs else f'{len(diffs)} differences (table below)'}",
           "- wall time per sweep: " + "; ".join(f"isolation={m}: " + ", ".join(f"{t:.1f} s" for t in times[m])
                                                for m in MODES),
           f"- total: on {on:.1f} s, off {off:.1f} s: overhead **{overhead:+.1f}%** (target <= 5%: "
           f"{'met' if overhead <= 5 else 'MISSED'})",
           f"- one launch of /bin/true through eda.sandbox.run (median of 40): isolation on "
           f"{launch['bwrap'] * 1000:.1f} ms, off {launch['off'] * 1000:.1f} ms",
           "- stage seconds summed over workers and rounds:", ""]
    md.append(md_table(per_stage.round(1).reset_index()))
    md.append("")
    if diffs:
        md += ["## Differences", "", md_table(pd.DataFrame(diffs)), ""]
    md += ["The machine is shared (2 cores, other agents' jobs running), so sweep times carry load noise; "
           "alternating the modes spreads it over both.", ""]
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
