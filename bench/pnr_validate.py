"""Does the pnr stage move the right way where the wiring differs? Small generated designs on both PDKs:

- the same netlist (mult8's reference) at utilization 0.2 and 0.7 (a bigger core spreads the cells): wirelength and post-route
  delay rise at the lower utilization, the cell area stays;
- a 32-input XOR as a chain and as a balanced tree (each node a kept wire, so synthesis cannot rebalance
  it): the chain is slower after routing as before it;
- an 8-bit mux of 4 and of 16 inputs: the wide one has more wire and a longer post-route delay.

Wire share of delay (1 - synthesis delay / routed delay) is reported, not checked: Nangate45's synthesis
timing uses the Liberty wire-load model, which is pessimistic for larger blocks, so the share can be negative.

    flock /tmp/rtl-heavy.lock .venv/bin/python bench/pnr_validate.py [--pdks nangate45,sky130hd]

Writes bench/results/pnr_validate.{md,csv}; every check is a row with its verdict.
"""
import argparse
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.common import header, write_rows, write_with_reading  # noqa: E402
from eda.cache import Cache  # noqa: E402
from eda.flow import FlowJob, evaluate  # noqa: E402

OUT = ROOT / "bench" / "results"
PNR = ("screen", "lint", "synth", "sta", "pnr")


def xor(kind: str, n: int = 32) -> str:
    body, nodes = [], [f"a[{i}]" for i in range(n)]
    k = 0
    if kind == "chain":
        acc = nodes[0]
        for x in nodes[1:]:
            body.append(f"  (* keep *) wire w{k} = {acc} ^ {x};")
            acc, k = f"w{k}", k + 1
        out = acc
    else:
        while len(nodes) > 1:
            nxt = []
            for x, y in zip(nodes[::2], nodes[1::2]):
                body.append(f"  (* keep *) wire w{k} = {x} ^ {y};")
                nxt.append(f"w{k}")
                k += 1
            nodes = nxt
        out = nodes[0]
    return f"module xor_{kind}(input [{n - 1}:0] a, output y);\n" + "\n".join(body) + f"\n  assign y = {out};\nendmodule\n"


def mux(n: int, w: int = 8) -> str:
    s = max(1, (n - 1).bit_length())
    return (f"module mux{n}(input [{n * w - 1}:0] d, input [{s - 1}:0] sel, output [{w - 1}:0] y);\n"
            f"  assign y = d[sel * {w} +: {w}];\nendmodule\n")


def run(pdk: str, top: str, code: str, cache: Cache, **pnr) -> dict:
    t0 = time.monotonic()
    rep = evaluate(FlowJob(top=top, pdk=pdk, stages=PNR, cache=cache, options={"pnr": pnr}), {f"{top}.v": code})
    st = rep.stages.get("pnr")
    row = {"pdk": pdk, "design": top, "utilization": pnr.get("utilization", 0.4), "status": rep.status,
           "synth_delay_ns": rep.delay_ns, "cells": (rep.stages["synth"].data.get("cells") if "synth" in rep.stages else "")}
    if st is not None and st.ok:
        d = st.data
        row.update(routed_delay_ns=d["delay_ns"], wirelength_um=d["wirelength_um"], vias=d["vias"], drc=d["drc"],
                   cell_area_um2=d["cell_area_um2"], core_area_um2=d["core_area_um2"],
                   wire_per_cell_um=round(d["wirelength_um"] / max(1, row["cells"] or 1), 2),
                   wire_delay_share=round(1 - rep.delay_ns / d["delay_ns"], 4) if d["delay_ns"] else "")
    row["seconds"] = round(time.monotonic() - t0, 1)
    print(row, flush=True)
    return row


def checks(pdk: str, r: dict) -> list:
    lo, hi = r["util0.2"], r["util0.7"]
    ch, tr, m4, m16 = r["chain"], r["tree"], r["mux4"], r["mux16"]
    rows = [("lower utilization: longer wires", lo["wirelength_um"] > hi["wirelength_um"],
             f"{lo['wirelength_um']} um at 0.2 vs {hi['wirelength_um']} um at 0.7"),
            ("lower utilization: post-route delay not lower", lo["routed_delay_ns"] >= hi["routed_delay_ns"],
             f"{lo['routed_delay_ns']} ns vs {hi['routed_delay_ns']} ns"),
            ("utilization leaves the cell area", abs(lo["cell_area_um2"] - hi["cell_area_um2"]) < 1e-6 * hi["cell_area_um2"] + 0.01,
             f"{lo['cell_area_um2']} vs {hi['cell_area_um2']} um2"),
            ("XOR chain slower than tree after routing", ch["routed_delay_ns"] > tr["routed_delay_ns"],
             f"{ch['routed_delay_ns']} ns vs {tr['routed_delay_ns']} ns"),
            ("wider mux: more routed wire", m16["wirelength_um"] > m4["wirelength_um"],
             f"{m16['wirelength_um']} vs {m4['wirelength_um']} um"),
            ("wider mux: larger post-route delay", m16["routed_delay_ns"] > m4["routed_delay_ns"],
             f"{m16['routed_delay_ns']} vs {m4['routed_delay_ns']} ns")]
    return [{"pdk": pdk, "check": c, "holds": bool(ok), "numbers": n} for c, ok, n in rows]


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--pdks", default="nangate45,sky130hd")
    args = ap.parse_args(argv)
    load0, t0 = open("/proc/loadavg").read().split()[:3], time.monotonic()
    cache = Cache(ROOT / "runs" / "bench" / "pnr_validate" / "cache")
    rows, verdicts = [], []
    for pdk in args.pdks.split(","):
        m8 = (ROOT / "designs" / "mult8" / "reference.v").read_text()
        got = {"util0.2": run(pdk, "mult8", m8, cache, utilization=0.2),
               "util0.7": run(pdk, "mult8", m8, cache, utilization=0.7),
               "chain": run(pdk, "xor_chain", xor("chain"), cache), "tree": run(pdk, "xor_tree", xor("tree"), cache),
               "mux4": run(pdk, "mux4", mux(4), cache), "mux16": run(pdk, "mux16", mux(16), cache)}
        rows += got.values()
        if all("routed_delay_ns" in r for r in got.values()):
            verdicts += checks(pdk, got)
        else:
            verdicts.append({"pdk": pdk, "check": "every design routed", "holds": False,
                             "numbers": ", ".join(f"{k}: {r['status']}" for k, r in got.items())})
    keys = list(dict.fromkeys(k for r in rows for k in r))
    write_rows(OUT / "pnr_validate.csv", [{k: r.get(k, "") for k in keys} for r in rows])
    meta = {"load at start (2 cores, shared)": " ".join(load0), "load at end": " ".join(open("/proc/loadavg").read().split()[:3]),
            "wall time": f"{time.monotonic() - t0:.0f} s", "flow": "eda.pnr defaults unless the row says otherwise"}
    md = [header("Place and route validation: does the pnr stage move the right way where wiring differs?", meta), "",
          f"{sum(v['holds'] for v in verdicts)} of {len(verdicts)} checks hold.", "",
          "| pdk | check | holds | numbers |", "|---|---|---|---|"]
    md += [f"| {v['pdk']} | {v['check']} | {v['holds']} | {v['numbers']} |" for v in verdicts]
    md += ["", "| pdk | design | utilization | cells | synth delay ns | routed delay ns | wirelength um | vias | DRC | "
               "wire/cell um | wire share of delay | s |", "|" + "---|" * 12]
    md += [f"| {r['pdk']} | {r['design']} | {r['utilization']} | {r['cells']} | {r['synth_delay_ns']} | "
           f"{r.get('routed_delay_ns', r['status'])} | {r.get('wirelength_um', '')} | {r.get('vias', '')} | "
           f"{r.get('drc', '')} | {r.get('wire_per_cell_um', '')} | {r.get('wire_delay_share', '')} | {r['seconds']} |"
           for r in rows]
    write_with_reading(OUT / "pnr_validate.md", "\n".join(md) + "\n")


if __name__ == "__main__":
    main()
