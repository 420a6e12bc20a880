"""Fit the datapath e-graph's cost table: synthesize one small module per (operator, width, PDK) with the
project's flow (stages synth, sta; unconstrained virtual clock) and record its area and critical-path delay.

    .venv/bin/python -m bench.fit_costs [--pdks nangate45,sky130hd] [--widths 1,2,4,8,16,32]

Writes rtl_agent/transforms/costs_table.json ({pdks: {pdk: {op: {width: [area_um2, delay_ns]}}}, how}).
About 200 evaluations, 2-3 minutes on 2 cores: run it under `flock /tmp/rtl-heavy.lock` on a shared machine.
"""
from __future__ import annotations

import argparse
import datetime
import json
import os
import time

from eda import tools
from eda.flow import FlowJob, evaluate
from rtl_agent.transforms.datapath.costs import TABLE

BIN = {"add": "+", "sub": "-", "mul": "*", "and": "&", "or": "|", "xor": "^"}


def module(op: str, w: int) -> str:
    k = max(1, (w - 1).bit_length())
    ins = f"input [{w - 1}:0] a, input [{w - 1}:0] b"
    if op in BIN:
        body, out = f"a {BIN[op]} b", w
    elif op == "addsub":
        ins += ", input s"
        body, out = "s ? a - b : a + b", w
    elif op == "not":
        body, out = "~a", w
    elif op == "mux":
        ins += ", input s"
        body, out = "s ? a : b", w
    elif op in ("eq", "lt"):
        body, out = f"a {'==' if op == 'eq' else '<'} b", 1
    elif op == "slt":
        body, out = "$signed(a) < $signed(b)", 1
    elif op in ("shl", "shr"):
        ins = f"input [{w - 1}:0] a, input [{k - 1}:0] b"
        body, out = f"a {'<<' if op == 'shl' else '>>'} b", w
    else:
        body, out = {"redor": "|a", "redand": "&a", "redxor": "^a"}[op], 1
    return f"module t({ins}, output [{out - 1}:0] y);\n  assign y = {body};\nendmodule\n"


OPS = list(BIN) + ["addsub", "not", "mux", "eq", "lt", "slt", "shl", "shr", "redor", "redand", "redxor"]


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--pdks", default="nangate45,sky130hd")
    ap.add_argument("--widths", default="1,2,4,8,16,32")
    ap.add_argument("--ops", default=",".join(OPS), help="refit these operators only, keeping the others")
    args = ap.parse_args(argv)
    widths = [int(x) for x in args.widths.split(",")]
    out = json.loads(TABLE.read_text()) if TABLE.exists() else {"pdks": {}}
    t0 = time.monotonic()
    for pdk in args.pdks.split(","):
        job = FlowJob(top="t", stages=("synth", "sta"), clock=None, pdk=pdk)
        tab = out["pdks"].setdefault(pdk, {})
        for op in args.ops.split(","):
            for w in widths:
                if w == 1 and op in ("shl", "shr", "slt", "redor", "redand", "redxor"):
                    continue
                r = evaluate(job, {"t.v": module(op, w)})
                if r.area_um2 is None:
                    print(f"{pdk} {op} {w}: {r.status}", flush=True)
                    continue
                tab.setdefault(op, {})[str(w)] = [round(r.area_um2, 3), round(r.delay_ns or 0.0, 4)]
                print(f"{pdk} {op:6} {w:3}: {r.area_um2:9.2f} um2 {r.delay_ns:.3f} ns", flush=True)
    out["how"] = {"script": "bench/fit_costs.py", "date": datetime.date.today().isoformat(),
                  "widths": widths, "tools": tools.versions(), "load": open("/proc/loadavg").read().split()[:3],
                  "seconds": round(time.monotonic() - t0, 1),
                  "note": "one module per operator and width, synth + sta of the project's flow, virtual clock"}
    TABLE.write_text(json.dumps(out, indent=1, sort_keys=True) + "\n")
    print(f"wrote {os.path.relpath(TABLE)}")


if __name__ == "__main__":
    main()
