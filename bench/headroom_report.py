"""bench/results/headroom.{md,csv,png} from the rows of bench/headroom.py run."""
from __future__ import annotations

import os
from pathlib import Path

import pandas as pd

from bench.common import header, md_table, write_rows
from bench.headroom_map import HEADROOM, PDKS, above, best, counted, floors, geomean

PUBLISHED = 0.349      # per-design test-time RL on RTLLM v2.0, Nangate45, testbench-only checks (PPA product)


def table(rows: list) -> list[dict]:
    out, fl = [], floors(rows)
    for r in rows:
        err = r.get("nangate45_error", "")
        b = {p: best(r, p) for p in PDKS}
        nf = fl[r["design"]]
        proven = sum(1 for e in r["rewrites"] if e.get("nangate45_ratio"))
        out.append({"design": r["design"], "suite": r.get("suite", ""),
                    "ref_ppa_n45": r.get("nangate45_ref_ppa"), "ref_equiv": r.get("nangate45_ref_equiv", ""),
                    "rewrites": len(r["rewrites"]), "proven": proven,
                    "best_n45": round(b["nangate45"][0], 4), "kind": b["nangate45"][1], "file": b["nangate45"][2],
                    "best_sky130": round(b["sky130hd"][0], 4), "noise_floor": round(nf, 4),
                    "above_noise": above(b["nangate45"][0], nf), "note": err[:120]})
    return out


def why_none(rows: list, t: list) -> list[str]:
    """One line per design without a proven gain above its noise floor: bench/headroom/<design>/WHY.md (what
    was tried and why it does not gain) when there is one, else what its rewrites measured."""
    by = {r["design"]: r for r in rows}
    out = []
    for x in t:
        if x["note"] or (x["above_noise"] and x["best_n45"] > 1):
            continue
        why = HEADROOM / x["design"] / "WHY.md"
        if why.is_file():
            text = " ".join(why.read_text().split())
        else:
            tried = [f"{e['file']} ({_verdict(e)})" for e in by[x["design"]]["rewrites"]]
            text = ("tried: " + ", ".join(tried)) if tried else "**no rewrite yet**"
        out.append(f"- {x['design']} ({x['suite']}): {text}")
    return out


def _verdict(e: dict) -> str:
    r = e.get("nangate45_ratio")
    if r:
        return f"{r:.3g}x"
    return f"not proven: {e.get('nangate45_equiv') or e.get('nangate45_why', '')[:40]}"


def write_report(rows: list, out: Path, elapsed: float):
    t = table(rows)
    write_rows(out.with_suffix(".csv"), t)
    rt = [x for x in t if x["suite"] == "rtllm"]
    pj = [x for x in t if x["suite"] == "project"]
    unsynth = [x for x in t if x["note"]]
    g_rt, g_pj = geomean([counted(x["best_n45"], x["noise_floor"]) for x in rt]), \
        geomean([counted(x["best_n45"], x["noise_floor"]) for x in pj])
    g_sky = geomean([x["best_sky130"] if x["best_sky130"] > 1 else 1.0 for x in rt])
    kinds = {}
    for x in t:
        if x["above_noise"] and x["best_n45"] > 1:
            kinds[x["kind"]] = kinds.get(x["kind"], 0) + 1
    lines = [header("Headroom map: hand-written rewrites, proven and measured", {
        "load at report": os.getloadavg(),
        "measurement time": f"{sum(r.get('seconds', 0) for r in rows) / 60:.1f} min summed over designs "
                            f"(this invocation {elapsed / 60:.1f} min; designs whose rewrites did not change are reused)"}),
        "",
        "Each rewrite under bench/headroom/<design>/ goes through the task's own flow (testbench, equivalence "
        "modulo its don't-cares, synthesis, STA). Only a `proven` verdict counts; a gain counts only above the "
        "design's noise floor (rtl_agent.noise: renaming, operand order, statement order, all three; raised by a "
        "zero folded into every top-level operator where bench/results/noise_neutral.csv measured it). "
        "No gain = 1.0.", "",
        f"- RTLLM v2.0: {len(rt)} designs, {sum(x['above_noise'] and x['best_n45'] > 1 for x in rt)} with a proven "
        f"gain above noise; ceiling geomean PPA ratio (ref/rewrite) **{g_rt:.3f}** on Nangate45 = a PPA product of "
        f"{1 / g_rt:.3f} of the references; Sky130 {g_sky:.3f}",
        f"- published per-design test-time RL (testbench-only checks): PPA product {PUBLISHED} = ratio "
        f"{1 / PUBLISHED:.3f}; one-line edits: no gain above noise (bench/results/one_line_headroom.md)",
        f"- project tasks: {len(pj)}, ceiling geomean {g_pj:.3f}",
        f"- designs whose reference fails its own flow (no PPA): {len(unsynth)}: "
        + ", ".join(f"{x['design']} ({x['note'][:60]})" for x in unsynth),
        f"- gains above noise by kind of change: {kinds}", "", md_table(pd.DataFrame(t)), ""]
    none = why_none(rows, t)
    lines += ["## Designs without a proven gain above noise", "",
              f"{len(none)} designs; {sum('no rewrite yet' in x for x in none)} without a rewrite or a written "
              "reason. Each line: bench/headroom/<design>/WHY.md, or what its rewrites measured on Nangate45.", ""]
    lines += none + [""]
    out.with_suffix(".md").write_text("\n".join(lines) + "\n")
    plot(t, out.with_suffix(".png"))


def plot(t: list, path: Path):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    t = sorted(t, key=lambda x: -x["best_n45"])
    fig, ax = plt.subplots(figsize=(max(8, len(t) * 0.22), 4))
    xs = range(len(t))
    ax.bar(xs, [x["best_n45"] for x in t], color=["C0" if x["suite"] == "rtllm" else "C2" for x in t])
    ax.scatter(xs, [x["noise_floor"] for x in t], color="C3", marker="_", s=80, label="noise floor", zorder=3)
    ax.axhline(1 / PUBLISHED, color="C1", ls="--", lw=1, label=f"published geomean 1/{PUBLISHED}")
    ax.axhline(1.0, color="k", lw=0.5)
    ax.set_xticks(list(xs), [x["design"] for x in t], rotation=90, fontsize=6)
    ax.set_yscale("log")
    ax.set_ylabel("best proven PPA_ref / PPA (Nangate45)")
    ax.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
