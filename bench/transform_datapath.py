"""What the `datapath` transformation kind (e-graph rewriting) finds on a few designs, measured by the flow.

    flock /tmp/rtl-heavy.lock .venv/bin/python -m bench.transform_datapath [--designs shared_alu,alu8,...]

For each design: the kind's options on the reference (time to list them), each option applied and evaluated by
the task's own flow job (testbench, equivalence with the reference, synth, sta) on the task's PDK; the PPA
ratio is reference PPA / candidate PPA (higher is better), counted only when equivalence is proven.
Writes bench/results/transform_datapath.{csv,md} (the Markdown keeps its hand-written `## Reading`).
"""
from __future__ import annotations

import argparse
import time
from pathlib import Path

from bench.common import header, md_table, write_rows, write_with_reading
from bench.headroom import _job, _ratio

OUT = Path(__file__).parent / "results"
DEFAULT = ("shared_alu,alu8,fixed_point_adder,fixed_point_substractor,alu,comparator_3bit,comparator_4bit,adder_8bit,"
           "barrel_shifter,sub_64bit,mult8,popcount16,ripple_sum4,mac_dup")


def one(name: str) -> list[dict]:
    from designs import load_task
    from rtl_agent import transforms as T
    from eda.flow import evaluate
    task = load_task(name)
    code = "\n".join(task.reference_sources().values())
    d = T.Design(code, task.top, pdk=task.pdk)
    t0 = time.monotonic()
    why = []
    opts = T.options(d, ["datapath"], log=lambda k, r: why.append(r))
    secs = time.monotonic() - t0
    base = {"design": name, "pdk": task.pdk, "options_s": round(secs, 2), "n_options": len(opts)}
    if not opts:
        return [{**base, "option": "", "equiv": "", "ratio": "", "area_ratio": "", "delay_ratio": "",
                 "note": why[0] if why else "no site with a cheaper form"}]
    job, ref = _job(task, task.pdk)
    rows = []
    for o in opts:
        new = T.apply(d, o)
        rep = evaluate(job, {f"{task.top}.v": new})
        r = _ratio(ref, rep)
        proven = rep.equiv_status == "proven"
        rows.append({**base, "option": o.label, "equiv": rep.equiv_status or rep.status,
                     "ratio": round(r, 3) if (r and proven) else "",
                     "area_ratio": round(ref.area_um2 / rep.area_um2, 3) if rep.area_um2 else "",
                     "delay_ratio": round(ref.delay_ns / rep.delay_ns, 3) if rep.delay_ns else "",
                     "note": "" if rep.ok else f"{rep.failed_stage}: {rep.failure_reason[:120]}"})
        print(rows[-1], flush=True)
    return rows


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--designs", default=DEFAULT)
    args = ap.parse_args(argv)
    load = open("/proc/loadavg").read().split()[:3]
    rows = []
    for name in args.designs.split(","):
        try:
            rows += one(name)
        except Exception as e:      # noqa: BLE001 - one design's failure is a row, not the end of the bench
            rows.append({"design": name, "pdk": "", "options_s": "", "n_options": 0, "option": "", "equiv": "",
                         "ratio": "", "area_ratio": "", "delay_ratio": "", "note": f"error: {str(e)[:150]}"})
    write_rows(OUT / "transform_datapath.csv", rows)
    extra = {"load (1/5/15 min, shared machine)": " ".join(load) + " -> " +
             " ".join(open("/proc/loadavg").read().split()[:3])}
    from importlib.metadata import version
    extra["egglog"], extra["pyslang"] = version("egglog"), version("pyslang")
    import pandas as pd
    body = header("Transformation kind `datapath` (e-graph rewriting)", extra) + "\n" + md_table(pd.DataFrame(rows)) + "\n"
    write_with_reading(OUT / "transform_datapath.md", body)


if __name__ == "__main__":
    main()
