"""What one transformation kind finds on RTLLM v2.0 and the project's tasks of its family, measured by the flow.

    nice -n 10 .venv/bin/python -m bench.kind_rtllm --kind loop_tree|counter_toggle [--designs a,b] [--scan-only]

Every RTLLM design (and the kind's project tasks, PROJECT below) is scanned for the kind's options (a parse, no
tools). Each option found is applied and evaluated by the task's own flow job (testbench, equivalence with
the reference, synthesis, timing, power; Nangate45); the ratio is reference PPA / candidate PPA, counted only
when equivalence is proven, and compared with the design's noise floor (rtl_agent.noise). Proven finds are
re-checked under strong synthesis (eda/synth_strong.py: each side at its best of the default, deep and speed
scripts). Writes bench/results/<kind>_rtllm.{csv,md} (the Markdown keeps its hand-written `## Reading`).
"""
from __future__ import annotations

import argparse
import time
from pathlib import Path

from bench.common import header, md_table, write_rows, write_with_reading
from bench.headroom import _job, _ratio

OUT = Path(__file__).parent / "results"
PROJECT = {"loop_tree": ("max8", "popcount16", "lzc16"), "counter_toggle": ("updown12", "counter8", "wide_count"),
           "retime": ("pipe_sum4",), "resynth": ("sym_detect",), "decode_delay": (), "bound_compare": ("stopwatch",),
           "offset_compare": ("period_div",), "signmag_add": ("signmag16",), "mem_clear": ("stack4",),
           "invert_reg": ("edge3",), "idle": ("idle_pipe",)}
COLS = ("design", "suite", "options", "option", "equiv", "ratio", "area_ratio", "delay_ratio", "noise_floor",
        "above_noise", "strong_ratio", "holds_strong", "seconds", "note")


def scan(names, kind) -> dict:
    """{design: (task, design, [options])} for the designs where the kind has a site."""
    from designs import load_task
    from rtl_agent import transforms as T
    out = {}
    for name in names:
        try:
            task = load_task(name)
            code = "\n".join(task.reference_sources().values())
            d = T.Design(code, task.top, pdk=task.pdk)
            opts = T.options(d, [kind])
        except Exception as e:      # noqa: BLE001 - a design the loader refuses is skipped, said why
            print(f"{name}: skipped ({str(e)[:100]})", flush=True)
            continue
        if opts:
            out[name] = (task, d, opts)
    return out


def one(name, task, d, opts, suite) -> list[dict]:
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
        if r and proven:
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
    from designs import load_suite
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--kind", required=True, choices=sorted(PROJECT))
    ap.add_argument("--designs", default="", help="comma-separated names (default: all of RTLLM and PROJECT)")
    ap.add_argument("--scan-only", action="store_true", help="list the designs with a site, evaluate nothing")
    args = ap.parse_args(argv)
    load = open("/proc/loadavg").read().split()[:3]
    rtllm = [t.name for t in load_suite("rtllm")]
    names = args.designs.split(",") if args.designs else rtllm + list(PROJECT[args.kind])
    found = scan(names, args.kind)
    print(f"sites in {len(found)} of {len(names)} designs: {', '.join(found)}", flush=True)
    if args.scan_only:
        return 0
    rows = []
    for name, (task, d, opts) in found.items():
        rows += one(name, task, d, opts, "rtllm" if name in rtllm else "project")
        write(args.kind, rows, load, names, rtllm, found)     # after each design: a stopped run keeps its rows
    return 0


def write(kind, rows, load, names, rtllm, found):
    misses = [n for n in names if n in rtllm and n not in found]
    write_rows(OUT / f"{kind}_rtllm.csv", [{k: r.get(k, "") for k in COLS} for r in rows])
    extra = {"load (1/5/15 min, shared machine)": " ".join(load) + " -> " +
             " ".join(open("/proc/loadavg").read().split()[:3]),
             "RTLLM designs scanned": f"{len([n for n in names if n in rtllm])}, with a {kind} site: "
                                      f"{len([n for n in found if n in rtllm])} ({len(misses)} without)"}
    import pandas as pd
    body = header(f"Transformation kind `{kind}` on RTLLM v2.0 and its project tasks", extra) + "\n" + \
        md_table(pd.DataFrame(rows, columns=COLS)) + "\n"
    write_with_reading(OUT / f"{kind}_rtllm.md", body)


if __name__ == "__main__":
    raise SystemExit(main())
