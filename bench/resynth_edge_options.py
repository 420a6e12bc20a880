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
import time
from pathlib import Path

from bench.common import header, md_table, write_rows, write_with_reading
from bench.headroom import _job, _ratio

OUT = Path(__file__).parent / "results"
DESIGNS = ("freq_divbyodd", "freq_divbyfrac", "oddclk7", "fsm", "sequence_detector", "traffic_light")
COLS = ("design", "suite", "options", "option", "equiv", "ratio", "area_ratio", "delay_ratio", "noise_floor",
        "above_noise", "strong_ratio", "holds_strong", "seconds", "note")


def one(name, task, d, opts, suite) -> list[dict]:
    """Each option through the task's flow job; proven ones also under strong synthesis."""
    from eda.flow import evaluate
    from rtl_agent import transforms as T
    from rtl_agent.jobs.optimize.strong import check
    from rtl_agent.noise import noise_floor
    job, ref = _job(task, task.pdk)
    floor = noise_floor(job, task.reference_sources(), task.top, ref_ppa=ref.ppa).floor
    rows = []
    for o in opts:
        t0 = time.monotonic()
        new = T.apply(d, o)
        rep = evaluate(job, {f"{task.top}.v": new})
        r = _ratio(ref, rep)
        proven = rep.equiv_status == "proven"
        row = {"design": name, "suite": suite, "options": len(opts), "option": o.label,
               "equiv": rep.equiv_status or rep.status, "ratio": round(r, 4) if (r and proven) else "",
               "area_ratio": round(ref.area_um2 / rep.area_um2, 3) if rep.area_um2 else "",
               "delay_ratio": round(ref.delay_ns / rep.delay_ns, 3) if rep.delay_ns else "",
               "noise_floor": round(floor, 4), "above_noise": bool(r and proven and r > floor),
               "strong_ratio": "", "holds_strong": "", "seconds": "",
               "note": "" if rep.ok else f"{rep.failed_stage}: {rep.failure_reason[:120]}"}
        if r and proven and r > floor:
            c = check(job, task.reference_sources(), task.top, new, floor)
            if c.get("ratio") is not None:
                row["strong_ratio"], row["holds_strong"] = round(c["ratio"], 4), bool(c["holds"])
            else:
                row["note"] = c.get("why", "")[:120]
        row["seconds"] = round(time.monotonic() - t0, 1)
        rows.append(row)
        print(row, flush=True)
    return rows


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
