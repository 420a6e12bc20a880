"""Fit the datapath e-graph's cost table (`rtl-agent fit-costs`): synthesize one small module per (operator,
width, PDK) with the project's flow (stages synth, sta; unconstrained virtual clock) and record its area and
critical-path delay, the numbers costs.Model extracts by.

    data = fit(data, ["nangate45"], [4, 8], ["add"])   # these entries measured again, the others kept

About 200 evaluations for the full table, 2-3 minutes on 2 cores.
"""
from __future__ import annotations

import datetime
import os
import time

BIN = {"add": "+", "sub": "-", "mul": "*", "and": "&", "or": "|", "xor": "^"}
OPS = list(BIN) + ["addsub", "not", "mux", "eq", "lt", "slt", "shl", "shr", "redor", "redand", "redxor"]
WIDTHS = (1, 2, 4, 8, 16, 32)
NOT_AT_1 = ("shl", "shr", "slt", "redor", "redand", "redxor")      # meaningless on one bit


def module(op: str, w: int) -> str:
    """Module `t`: the operator alone at width w, inputs a, b (and s where it selects), output y."""
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


def fit(data: dict, pdks, widths, ops, log=print) -> dict:
    """data ({pdks: {pdk: {op: {width: [area_um2, delay_ns]}}}, how}) with the named entries measured again
    and `how` saying how; an entry the flow cannot measure is logged and left as it was."""
    from eda import tools
    from eda.flow import FlowJob, evaluate
    out = {**data, "pdks": {p: dict(t) for p, t in (data.get("pdks") or {}).items()}}
    t0 = time.monotonic()
    for pdk in pdks:
        job = FlowJob(top="t", stages=("synth", "sta"), clock=None, pdk=pdk)
        tab = out["pdks"].setdefault(pdk, {})
        for op in ops:
            for w in widths:
                if w == 1 and op in NOT_AT_1:
                    continue
                r = evaluate(job, {"t.v": module(op, w)})
                if r.area_um2 is None:
                    log(f"{pdk} {op} {w}: {r.status}")
                    continue
                tab[op] = {**tab.get(op, {}), str(w): [round(r.area_um2, 3), round(r.delay_ns or 0.0, 4)]}
                log(f"{pdk} {op:6} {w:3}: {r.area_um2:9.2f} um2 {r.delay_ns or 0.0:.3f} ns")
    out["how"] = {"command": "rtl-agent fit-costs", "date": datetime.date.today().isoformat(),
                  "pdks": list(pdks), "ops": list(ops), "widths": list(widths), "tools": tools.versions(),
                  "load": [f"{x:.2f}" for x in os.getloadavg()], "seconds": round(time.monotonic() - t0, 1),
                  "note": "one module per operator and width, synth + sta of the project's flow, virtual clock"}
    return out
