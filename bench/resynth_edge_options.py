"""Every option of the `resynth` kind on the both-edge and state-machine designs of issue #58, measured by the
flow (the optimize runs of the same designs are bench/transform_search.py's; this is the menu itself).

    nice -n 10 .venv/bin/python -m bench.resynth_edge_options [--designs a,b]

Each option is applied and evaluated by the task's own flow job (testbench, equivalence with the reference,
synthesis, timing, power; the task's PDK); the ratio is reference PPA / candidate PPA, counted only when
equivalence is proven, and compared with the design's noise floor (rtl_agent.noise). Proven options are
re-checked under strong synthesis (eda/synth_strong.py via jobs/optimize/strong.check). Writes
bench/results/resynth_edge_options.{csv,md} (the Markdown keeps its hand-written `## Reading`).
"""
from __future__ import annotations

import argparse
from pathlib import Path

from bench.common import header, md_table, write_rows, write_with_reading
from bench.kind_rtllm import one   # each option through the flow, proven ones under strong synthesis

OUT = Path(__file__).parent / "results"
DESIGNS = ("freq_divbyodd", "freq_divbyfrac", "oddclk7", "fsm", "sequence_detector", "traffic_light")
COLS = ("design", "suite", "options", "option", "equiv", "ratio", "area_ratio", "delay_ratio", "noise_floor",
        "above_noise", "strong_ratio", "holds_strong", "seconds", "note")


def main(argv=None):
    from designs import load_suite, load_task
    from rtl_agent import transforms as T
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--designs", default=",".join(DESIGNS))
    args = ap.parse_args(argv)
    load = open("/proc/loadavg").read().split()[:3]
    rtllm = {t.name for t in load_suite("rtllm")}
    rows, why = [], {}
    for name in args.designs.split(","):
        task = load_task(name)
        d = T.Design("\n".join(task.reference_sources().values()), task.top, pdk=task.pdk)
        opts = T.options(d, ["resynth"], log=lambda k, r, n=name: why.__setitem__(n, r))
        if not opts:
            rows.append({"design": name, "suite": "rtllm" if name in rtllm else "project", "options": 0,
                         "note": why.get(name, "no option")})
            print(rows[-1], flush=True)
            continue
        rows += one(name, task, d, opts, "rtllm" if name in rtllm else "project")
    write_rows(OUT / "resynth_edge_options.csv", [{k: r.get(k, "") for k in COLS} for r in rows])
    extra = {"load (1/5/15 min, shared machine)": " ".join(load) + " -> " +
             " ".join(open("/proc/loadavg").read().split()[:3])}
    import pandas as pd
    body = header("Kind `resynth` (both-edge machines, resynth_edge) option by option", extra) + "\n" + \
        md_table(pd.DataFrame(rows, columns=COLS)) + "\n"
    write_with_reading(OUT / "resynth_edge_options.md", body)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
