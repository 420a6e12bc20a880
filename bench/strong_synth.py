"""Every committed find re-synthesized under strong synthesis (eda/synth_strong.py: each design keeps its best
PPA over the default script, `&deepsyn` area mapping and OpenROAD-flow-scripts' delay rounds): does the gain
hold, or did the default script only map the reference badly?

    flock /tmp/rtl-heavy.lock .venv/bin/python bench/strong_synth.py [--designs a,b] [--sources library,map]

The finds: the transformation library's proven RTLLM finds above noise (bench/results/transform_rtllm_frozen.json,
their designs in transform_rtllm_finds/), and the headroom map's best hand-written rewrite per design above its
noise floor on Nangate45 (bench/results/headroom.json). A find holds when its strong ratio is still above the
noise floor it cleared. Writes bench/results/strong_synth.{md,csv}, rewritten after every find (a cut run still
leaves what it measured); rows of designs or sources not measured stay as the last run left them.
"""
import argparse
import csv
import json
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import pandas as pd  # noqa: E402

from bench.common import header, md_table, write_rows, write_with_reading  # noqa: E402
from bench.headroom_map import HEADROOM, above, best, floors, geomean  # noqa: E402
from eda.synth_strong import FRONT, NAMES, SCRIPTS  # noqa: E402

OUT = ROOT / "bench" / "results"
FINDS = OUT / "transform_rtllm_finds"
PDK = "nangate45"
COLS = ("source", "design", "suite", "file", "kind", "ratio", "noise_floor", "strong_ratio", "holds_strong",
        "ref_script", "script", "default_ratio_now", "ref_strong_gain", "seconds", "why")


def library_finds():
    """(design, suite, path, kind, committed ratio, floor) of the library's RTLLM finds above noise."""
    for r in json.loads((OUT / "transform_rtllm_frozen.json").read_text()):
        if r.get("above_noise") and (FINDS / f"{r['design']}.v").exists():
            yield r["design"], "rtllm", FINDS / f"{r['design']}.v", r["chain"].split(":")[0], r["best_ratio"], \
                r["noise_floor"]


def map_finds():
    """The same for the headroom map's best rewrite per design above its floor on Nangate45."""
    hm = json.loads((OUT / "headroom.json").read_text())["rows"]
    fl = floors(hm)
    for r in hm:
        ratio, kind, file = best(r, PDK)
        if file and above(ratio, fl[r["design"]]):
            yield r["design"], r.get("suite", ""), HEADROOM / r["design"] / file, kind, ratio, fl[r["design"]]


SOURCES = {"library": library_finds, "map": map_finds}


def measure(source, design, suite, path, kind, ratio, floor) -> dict:
    from designs import load_task
    from rtl_agent.jobs.optimize.strong import check
    t0 = time.monotonic()
    row = {"source": source, "design": design, "suite": suite, "file": path.name, "kind": kind,
           "ratio": round(ratio, 4), "noise_floor": round(floor, 4)}
    task = load_task(design)
    c = check(task.flow_job(PDK), task.reference_sources(), task.top, path.read_text(), floor)
    if c.get("ratio") is None:
        return {**row, "why": c.get("why", "?")[:200], "seconds": round(time.monotonic() - t0, 1)}
    rb, db = c["ref_by_script"], c["by_script"]
    return {**row, "strong_ratio": round(c["ratio"], 4), "holds_strong": above(c["ratio"], floor),
            "ref_script": c["ref_script"], "script": c["script"],
            "default_ratio_now": round(rb["default"] / db["default"], 4) if rb.get("default") and db.get("default")
            else "", "ref_strong_gain": round(rb["default"] / c["ref_ppa"], 4) if rb.get("default") else "",
            "seconds": round(time.monotonic() - t0, 1)}


def summary(rows, source) -> list:
    rs = [r for r in rows if r["source"] == source]
    done = [r for r in rs if r.get("strong_ratio") not in ("", None)]
    held = [r for r in done if r["holds_strong"] in (True, "True")]
    out = [f"- {source}: {len(held)} of {len(done)} finds measured hold under strong synthesis"
           f" ({len(rs) - len(done)} not measured); geomean of the measured finds "
           f"{geomean(r['ratio'] for r in done):.3f}"
           f" under the default script, {geomean(r['strong_ratio'] for r in done):.3f} under strong synthesis"]
    designs = _rtllm_designs(source)
    rt = [r for r in rs if r["suite"] == "rtllm"]
    default = geomean([r["ratio"] for r in rt] + [1.0] * (len(designs) - len(rt)))
    strong = geomean([r["strong_ratio"] if r in held else 1.0 for r in rt] + [1.0] * (len(designs) - len(rt)))
    out.append(f"- {source}, over all {len(designs)} RTLLM designs (1.0 where no find, or where it does not hold): "
               f"geomean {default:.3f} under the default script, {strong:.3f} under strong synthesis")
    return out


def _rtllm_designs(source) -> set:
    if source == "library":
        return {r["design"] for r in json.loads((OUT / "transform_rtllm_frozen.json").read_text())}
    return {r["design"] for r in json.loads((OUT / "headroom.json").read_text())["rows"] if r.get("suite") == "rtllm"}


def report(rows, meta):
    md = [meta if isinstance(meta, str) else header("Finds under strong synthesis", meta), "",
          "Each find and its reference re-synthesized with every script of eda/synth_strong.py ("
          + ", ".join(NAMES) + "); each design keeps its lowest area x delay x power, through the flow's own "
          "synthesis and OpenSTA timing/power on " + PDK + ". `ratio`: the committed ratio under the default script; "
          "`strong_ratio`: the reference's best over the find's best; `holds_strong`: still above the find's noise "
          "floor; `ref_script`/`script`: the script that gave each its best; `default_ratio_now`: the default "
          "script's ratio in this run (the committed one, unless the flow changed); `ref_strong_gain`: how much "
          "strong synthesis improved the reference over the default script.", ""]
    for s in SOURCES:
        if any(r["source"] == s for r in rows):
            md += summary(rows, s)
    md += ["", md_table(pd.DataFrame([{c: r.get(c, "") for c in COLS} for r in rows], columns=list(COLS)))]
    write_with_reading(OUT / "strong_synth.md", "\n".join(md) + "\n")


def _load() -> list:
    try:
        with (OUT / "strong_synth.csv").open() as f:
            return [{k: _value(v) for k, v in r.items()} for r in csv.DictReader(f)]
    except OSError:
        return []


def _value(v):
    if v in ("True", "False"):
        return v == "True"
    try:
        return float(v)
    except ValueError:
        return v


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--designs", default="", help="comma list (default: every find)")
    ap.add_argument("--sources", default="library,map")
    ap.add_argument("--report-only", action="store_true",
                    help="rewrite the report from strong_synth.csv under its measuring run's header (no synthesis)")
    a = ap.parse_args(argv)
    if a.report_only:
        old = (OUT / "strong_synth.md").read_text()
        report(_load(), old[:old.index("\n\nEach find")].rstrip("\n") + "\n")
        return 0
    only = {d for d in a.designs.split(",") if d}
    sources = a.sources.split(",")
    t0 = time.monotonic()
    load0 = " ".join(open("/proc/loadavg").read().split()[:3])
    rows = [r for r in _load() if r["source"] not in sources or (only and r["design"] not in only)]
    meta = {"load at start (shared machine)": load0, "pdk": PDK,
            "scripts": "; ".join(f"{n}: {' ; '.join(s[len(FRONT):])}" for n, s in SCRIPTS.items())
            + f" (each after Yosys's own abc front: {' ; '.join(FRONT)})"}
    order = {s: i for i, s in enumerate(SOURCES)}
    for s in sources:
        for f in SOURCES[s]():
            if only and f[0] not in only:
                continue
            r = measure(s, *f)
            print(json.dumps(r), flush=True)
            rows.append(r)
            rows.sort(key=lambda x: (order.get(x["source"], 9), x["design"]))
            write_rows(OUT / "strong_synth.csv", [{c: x.get(c, "") for c in COLS} for x in rows])
            report(rows, meta)
    meta["load at end"] = " ".join(open("/proc/loadavg").read().split()[:3])
    meta["wall time"] = f"{time.monotonic() - t0:.0f} s"
    report(rows, meta)
    print(f"wrote {OUT / 'strong_synth.md'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
