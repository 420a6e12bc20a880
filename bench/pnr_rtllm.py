"""RTLLM references placed and routed with OpenROAD on each PDK (the pnr stage), smallest first within a time
budget, and every committed find of the headroom map (bench/results/headroom.json: the best hand-written
rewrite per design above its noise floor) placed and routed beside its reference: does the gain hold after
routing?

    flock /tmp/rtl-heavy.lock .venv/bin/python bench/pnr_rtllm.py [--pdks nangate45,sky130hd] [--budget-s 1800]
        [--finds-budget-s 1200] [--wall-s 240]

Writes bench/results/pnr_rtllm.{md,csv} and pnr_finds.csv (rewritten after every design: a cut run still
leaves what it measured). Designs not reached within the budget are listed as such.
"""
import argparse
import json
import math
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import pandas as pd  # noqa: E402

from bench.common import header, md_table, write_rows, write_with_reading  # noqa: E402
from bench.headroom_map import HEADROOM, above, best, floors  # noqa: E402
from eda.flow import calibrate, evaluate  # noqa: E402
from eda.sandbox import Limits  # noqa: E402
from eda.tools import OPENROAD  # noqa: E402

OUT = ROOT / "bench" / "results"
PNR = ("screen", "lint", "synth", "sta", "pnr")


def routed(job, src, wall_s):
    """(Report, pnr StageResult or None) of `src` through synthesis, timing and place and route."""
    lim = {**job.limits, "pnr": Limits(wall_s=wall_s, cpu_s=int(wall_s * 1.5), mem_mb=8192, disk_mb=4096)}
    rep = evaluate(job.replace(stages=PNR, limits=lim), src)
    return rep, rep.stages.get("pnr")


def table(cols, rows) -> str:
    return md_table(pd.DataFrame(rows, columns=cols))


def ppa(d):
    return d["cell_area_um2"] * d["delay_ns"] * d["power_w"]


def reference_rows(pdk, budget_s, wall_s, only=None):
    from designs import load_suite
    cal = []
    for t in load_suite("rtllm", only=only):
        job, rep = calibrate(t.flow_job(pdk), t.reference_sources())
        syn = rep.stages.get("synth")
        cal.append((syn.data.get("cells", 10**9) if syn and syn.ok else 10**9, t, job, rep))
    cal.sort(key=lambda x: (x[0], x[1].name))
    t0 = time.monotonic()
    for cells, t, job, rep in cal:
        row = {"pdk": pdk, "design": t.name, "cells": cells if cells < 10**9 else "", "status": "", "why": "",
               "pnr_s": "", "synth_delay_ns": rep.delay_ns, "routed_delay_ns": "", "synth_power_w": rep.power_w,
               "routed_power_w": "", "synth_area_um2": rep.area_um2, "routed_area_um2": "", "core_area_um2": "",
               "wirelength_um": "", "vias": "", "drc": ""}
        if not rep.ok:
            row.update(status="ref fails", why=f"{rep.failed_stage}: {rep.failure_reason[:120]}")
        elif time.monotonic() - t0 > budget_s:
            row.update(status="not run", why=f"time budget ({budget_s:g} s for this PDK) spent")
        else:
            r2, st = routed(job, t.reference_sources(), wall_s)
            if st is None or not st.ok:
                bad = st or r2.stages.get(r2.failed_stage)
                row.update(status=(st.status if st else "not reached"),
                           why=(bad.diagnostics[0].message if bad and bad.diagnostics else r2.status)[:160])
                row["pnr_s"] = round(st.seconds, 1) if st else ""
            else:
                d = st.data
                row.update(status="pass", pnr_s=round(st.seconds, 1), routed_delay_ns=d["delay_ns"],
                           routed_power_w=d["power_w"], routed_area_um2=d["cell_area_um2"],
                           core_area_um2=d["core_area_um2"], wirelength_um=d["wirelength_um"], vias=d["vias"],
                           drc=d["drc"])
        print(f"{pdk} {t.name}: {row['status']} {row['pnr_s']} {row['why']}", flush=True)
        yield row


FINDS = OUT / "transform_rtllm_finds"   # the library's proven finds on RTLLM (transform_rtllm_frozen.json)


def committed_finds(pdk):
    """(design, source path, kind, ratio after synthesis) of every committed find: the headroom map's best
    hand-written rewrite above its noise floor on `pdk`, then (Nangate45 runs only) the transformation
    library's finds that bench/transform_search.py proved above noise."""
    hm = json.loads((OUT / "headroom.json").read_text())["rows"]
    fl = floors(hm)
    for r in hm:
        ratio, kind, file = best(r, pdk)
        if file and above(ratio, fl[r["design"]]):
            yield r["design"], HEADROOM / r["design"] / file, f"map {kind}", ratio
    for r in json.loads((OUT / "transform_rtllm_frozen.json").read_text()):
        if r.get("above_noise") and (FINDS / f"{r['design']}.v").exists():
            yield r["design"], FINDS / f"{r['design']}.v", "library " + r["chain"].split(":")[0], r["best_ratio"]


def find_rows(pdk, budget_s, wall_s, only=()):
    from designs import load_task
    t0 = time.monotonic()
    for design, path, kind, ratio in committed_finds(pdk):
        if only and design not in only:
            continue
        row = {"pdk": pdk, "design": design, "file": path.name, "kind": kind, "synth_ratio": round(ratio, 4),
               "routed_ratio": "", "holds": "", "why": ""}
        if time.monotonic() - t0 > budget_s:
            row["why"] = "not run: time budget spent"
            yield row
            continue
        task = load_task(design)
        job, _ = calibrate(task.flow_job(pdk), task.reference_sources(), against_itself=True)
        ref, rs = routed(job, task.reference_sources(), wall_s)
        des, ds = routed(job, {f"{task.top}.v": path.read_text()}, wall_s)
        if rs and rs.ok and ds and ds.ok:
            rr = ppa(rs.data) / ppa(ds.data)
            row.update(synth_ratio=round(ref.ppa / des.ppa, 4), routed_ratio=round(rr, 4),
                       holds=rr > 1.0, ref_wl=rs.data["wirelength_um"], wl=ds.data["wirelength_um"])
        else:
            bad = next((s for s in (rs, ds) if s and not s.ok), None)
            row["why"] = (bad.diagnostics[0].message[:160] if bad and bad.diagnostics else
                          f"ref {ref.failed_stage} / design {des.failed_stage}")
        print(f"find {pdk} {design} {path.name}: synth {row['synth_ratio']} routed {row['routed_ratio']} {row['why']}",
              flush=True)
        yield row


def report(rows, finds, meta):
    md = [header("RTLLM references and committed finds after OpenROAD place and route", meta), ""]
    for pdk in sorted({r["pdk"] for r in rows}):
        rs = [r for r in rows if r["pdk"] == pdk]
        ok = [r for r in rs if r["status"] == "pass"]
        secs = sorted(r["pnr_s"] for r in ok)
        md.append(f"## {pdk}: {len(ok)} of {len(rs)} references placed and routed with 0 DRC"
                  + (f" (median {secs[len(secs) // 2]} s, max {secs[-1]} s a design)" if secs else ""))
        md.append("")
        why = {}
        for r in rs:
            if r["status"] != "pass":
                why.setdefault(f"{r['status']}", []).append(r["design"])
        for k, v in why.items():
            md.append(f"- {k}: {len(v)} ({', '.join(v)})")
        md.append("")
        md.append(table(["design", "cells", "pnr s", "delay synth -> routed ns", "power synth -> routed W",
                            "area um2 (core)", "wirelength um", "vias", "DRC", "status"],
                           [[r["design"], r["cells"], r["pnr_s"],
                             f"{r['synth_delay_ns']} -> {r['routed_delay_ns']}" if r["routed_delay_ns"] != "" else "",
                             f"{r['synth_power_w']:.3g} -> {r['routed_power_w']:.3g}" if r["routed_power_w"] != "" else "",
                             f"{r['routed_area_um2']} ({r['core_area_um2']:.0f})" if r["core_area_um2"] != "" else "",
                             r["wirelength_um"], r["vias"], r["drc"], r["status"] + (f": {r['why']}" if r["why"] else "")]
                            for r in rs]))
        md.append("")
    if finds:
        done = [f for f in finds if f["routed_ratio"] != ""]
        holds = [f for f in done if f["holds"]]
        md.append(f"## Committed finds (headroom map's best rewrite, and the library's finds): {len(holds)} of {len(done)} measured "
                  f"hold after place and route ({len(finds) - len(done)} not measured)")
        md.append("")
        md.append("PPA after routing: placed cell area (clock-tree buffers included) x post-route delay x "
                  "post-route power, both from OpenSTA with the routed wires' parasitics.")
        md.append("")
        md.append(table(["pdk", "design", "rewrite", "ratio after synthesis", "after place and route", "holds",
                            "note"], [[f["pdk"], f["design"], f"{f['kind']}: {f['file']}", f["synth_ratio"], f["routed_ratio"],
                                       f["holds"], f["why"]] for f in finds]))
        gm = [f["routed_ratio"] for f in done]
        if gm:
            md.append("")
            md.append(f"Geomean after routing {math.exp(sum(map(math.log, gm)) / len(gm)):.3f} against "
                      f"{math.exp(sum(math.log(f['synth_ratio']) for f in done) / len(done)):.3f} after synthesis "
                      f"(the same {len(done)} finds).")
    write_with_reading(OUT / "pnr_rtllm.md", "\n".join(md) + "\n")   # keeps a hand-written ## Reading


def _load(path: Path) -> list:
    import csv

    def value(v):
        if v in ("True", "False"):
            return v == "True"
        try:
            return v if v == "" else int(v) if v.lstrip("-").isdigit() else float(v)
        except ValueError:
            return v
    try:
        with path.open() as f:
            return [{k: value(v) for k, v in r.items()} for r in csv.DictReader(f)]
    except OSError:
        return []


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--pdks", default="nangate45,sky130hd")
    ap.add_argument("--budget-s", type=float, default=1800, help="place-and-route time per PDK for references")
    ap.add_argument("--finds-budget-s", type=float, default=1200, help="time per PDK for the finds")
    ap.add_argument("--wall-s", type=float, default=240, help="wall limit of one place and route")
    ap.add_argument("--designs", default=None, help="comma list of RTLLM designs (default all)")
    a = ap.parse_args(argv)
    t0 = time.monotonic()
    load0 = open("/proc/loadavg").read().split()[:3]
    pdks = a.pdks.split(",")
    # rows this run does not measure (other PDKs, other designs) stay as the last run left them
    only = {d for d in (a.designs or "").split(",") if d}
    def stays(r):
        return r["pdk"] not in pdks or bool(only) and r["design"] not in only
    rows = [r for r in _load(OUT / "pnr_rtllm.csv") if stays(r)]
    finds = [f for f in _load(OUT / "pnr_finds.csv") if stays(f)]
    kept = sorted({r["pdk"] for r in rows + finds} - set(pdks)) + (["other designs"] if only else [])
    meta = {"openroad": OPENROAD.version(), "load at start (shared machine, 2 cores)": " ".join(load0),
            "budget": f"{a.budget_s:g} s of place and route per PDK for references (smallest first), "
                      f"{a.finds_budget_s:g} s per PDK for finds, {a.wall_s:g} s wall per design",
            **({"rows kept from an earlier run (its own budget and load)": ", ".join(kept)} if kept else {}),
            "flow": "utilization 0.4, aspect 1.0, 10 ns clock, clock tree where the design has a clock, one thread"}
    # the finds first: their references are RTLLM's too, so the reference pass then hits the cache
    for pdk in pdks:
        for f in find_rows(pdk, a.finds_budget_s, a.wall_s, only):
            finds.append(f)
            finds.sort(key=lambda x: (x["pdk"], x["kind"].startswith("library"), x["design"]))
            write_rows(OUT / "pnr_finds.csv", [{k: f.get(k, "") for k in ("pdk", "design", "file", "kind",
                                               "synth_ratio", "routed_ratio", "holds", "ref_wl", "wl", "why")}
                                              for f in finds])
            report(rows, finds, meta)
    for pdk in pdks:
        for r in reference_rows(pdk, a.budget_s, a.wall_s, a.designs):
            rows.append(r)
            # a subset run's rows go back where a full run puts them: per PDK, smallest design first
            rows.sort(key=lambda x: (x["pdk"], x["cells"] if x["cells"] != "" else 10**9, x["design"]))
            write_rows(OUT / "pnr_rtllm.csv", rows)
            report(rows, finds, meta)
    meta["load at end"] = " ".join(open("/proc/loadavg").read().split()[:3])
    meta["wall time"] = f"{time.monotonic() - t0:.0f} s"
    report(rows, finds, meta)
    print(f"wrote {OUT / 'pnr_rtllm.md'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
