"""Real multi-file designs from ../shared/corpus (verilog-axis, verilog-axi, picorv32) through the flow as a user
would give them (files, -P parameters, no task folder): eval time per stage and PPA on Nangate45, synthesis and
timing on Sky130, and the design's equivalence with itself (proof method and time). Failures are rows with their
cause, never a traceback.

    flock /tmp/rtl-heavy.lock .venv/bin/python bench/real_designs.py [--only a,b] [--equiv-timeout 60]
    flock /tmp/rtl-heavy.lock .venv/bin/python bench/real_designs.py --jobs [--steps 5] [--job-wall-s 900]

Writes bench/results/real_designs.{md,json}. --jobs instead runs `rtl-agent optimize` (5 steps, the default
actions and model) and `rtl-agent cover` (its default target) on each design as a user would, from its files
and -P parameters, in runs/bench/real_designs/ (resumed when run again), and writes real_designs_jobs.{md,json}.
"""
import argparse
import json
import os
import sys
import time
from pathlib import Path

import pandas as pd

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.common import header, md_table, write_with_reading  # noqa: E402
from eda.config import require_shared  # noqa: E402
from eda.design_inputs import DesignInputError, gather  # noqa: E402
from eda.flow import FlowJob, evaluate  # noqa: E402
from eda.hdl import instantiations, module_names  # noqa: E402

OUT = Path(__file__).resolve().parent / "results"
AXIS, AXI, RV = "corpus/verilog-axis/rtl", "corpus/verilog-axi/rtl", "corpus/picorv32"
# (label, folder, top file, top, -P parameters): submodules are found by name (<module>.v in the same folder)
DESIGNS = [
    ("axis_register", AXIS, "axis_register.v", "axis_register", {}),
    ("axis_fifo DEPTH=16", AXIS, "axis_fifo.v", "axis_fifo", {"DEPTH": "16"}),
    ("axis_fifo (default DEPTH=4096)", AXIS, "axis_fifo.v", "axis_fifo", {}),
    ("axis_cobs_encode", AXIS, "axis_cobs_encode.v", "axis_cobs_encode", {}),
    ("axis_switch", AXIS, "axis_switch.v", "axis_switch", {}),
    ("axis_arb_mux", AXIS, "axis_arb_mux.v", "axis_arb_mux", {}),
    ("axis_adapter 64->8", AXIS, "axis_adapter.v", "axis_adapter", {"S_DATA_WIDTH": "64", "M_DATA_WIDTH": "8"}),
    ("axis_srl_fifo", AXIS, "axis_srl_fifo.v", "axis_srl_fifo", {}),
    ("axis_rate_limit", AXIS, "axis_rate_limit.v", "axis_rate_limit", {}),
    ("priority_encoder", AXIS, "priority_encoder.v", "priority_encoder", {}),
    ("axil_register", AXI, "axil_register.v", "axil_register", {}),
    ("axi_register", AXI, "axi_register.v", "axi_register", {}),
    ("axil_adapter 32->8", AXI, "axil_adapter.v", "axil_adapter", {"S_DATA_WIDTH": "32", "M_DATA_WIDTH": "8"}),
    ("axil_ram ADDR_WIDTH=6", AXI, "axil_ram.v", "axil_ram", {"ADDR_WIDTH": "6"}),
    ("picorv32_pcpi_mul", RV, "picorv32.v", "picorv32_pcpi_mul", {}),
    ("picorv32_pcpi_div", RV, "picorv32.v", "picorv32_pcpi_div", {}),
    ("picorv32", RV, "picorv32.v", "picorv32", {}),
]


def files_of(folder: Path, top_file: str) -> list[Path]:
    """The top file and, recursively, <module>.v of every module it instantiates that it does not define."""
    files, todo = [], [folder / top_file]
    while todo:
        f = todo.pop(0)
        if f in files or not f.is_file():
            continue
        files.append(f)
        text = f.read_text(errors="replace")
        mine = set(module_names(text))
        todo += [folder / f"{m}.v" for _, m, _ in instantiations(text) if m not in mine]
    return files


def stage_times(rep) -> dict:
    return {k: round(v.seconds, 2) for k, v in rep.stages.items()}


def one(label, folder, top_file, top, params, equiv_timeout) -> dict:
    row = {"design": label, "top": top, "files": [], "params": params}
    try:
        root = require_shared(folder)
        files = files_of(root, top_file)
        row["files"] = [f.name for f in files]
        texts = gather(files, params=params, top=top)
    except (DesignInputError, OSError, ValueError) as e:
        return {**row, "status": "input error", "cause": str(e)}
    row["lines"] = sum(t.count("\n") for t in texts.values() if isinstance(t, str))
    for pdk in ("nangate45", "sky130hd"):
        stages = ("lint", "synth", "sta") if pdk == "nangate45" else ("synth", "sta")
        rep = evaluate(FlowJob(top=top, pdk=pdk, stages=stages, use_cache=False), texts)
        row[pdk] = {"status": rep.status, "failed_stage": rep.failed_stage, "cause": rep.failure_reason[:300],
                    "seconds": stage_times(rep), "area_um2": rep.area_um2, "delay_ns": rep.delay_ns,
                    "power_w": rep.power_w, "ppa": rep.ppa,
                    "cells": (rep.stages.get("synth").data.get("cells") if rep.stages.get("synth") else None)}
    from eda.observe import equivalence
    t0 = time.monotonic()
    st = equivalence(texts, texts, top, None, timeout_s=equiv_timeout)
    row["self_equiv"] = {"status": st.status, "method": st.data.get("method"),
                         "seconds": round(time.monotonic() - t0, 1),
                         "note": "; ".join(d.message for d in st.diagnostics)[:300]}
    row["status"] = "pass" if row["nangate45"]["status"] == "pass" else "fail"
    return row


def job_args(folder, top_file, top, params) -> list:
    files = files_of(require_shared(folder), top_file)
    return [*map(str, files), "--top", top, *(a for k, v in params.items() for a in ("-P", f"{k}={v}"))]


# cover without its model phase: every simulation of the default budget is constrained random, then the formal
# phase: the model's stimulus costs minutes a step at these designs' 4600-token prompts on 2 cores
COVER_NO_MODEL = ["--budget", "16", "--random-budget", "16", "--patience", "16"]


def job_folder(label, job, actions, cover_model) -> Path:
    base = Path(__file__).resolve().parent.parent / "runs" / "bench" / "real_designs"
    slug = "".join(c if c.isalnum() else "_" for c in label)
    tag = ("-" + "".join(c if c.isalnum() else "_" for c in actions) if job == "optimize" and actions else
           "-no_model" if job == "cover" and not cover_model else "")
    return base / f"{slug}-{job}{tag}"


def reread(row, steps, actions, cover_model) -> dict:
    """A row of an earlier --jobs pass with its results read again from its run folders (nothing is run)."""
    out = dict(row)
    for job in ("optimize", "cover"):
        f, was = job_folder(row["design"], job, actions, cover_model), str(row.get(job, ""))
        if was.startswith(("rc timeout", "stopped after")) and job == "optimize" and (f / "best.json").exists():
            out[job] = stopped_result(was.removeprefix("rc timeout: ").split(" after step")[0], f, steps)
        elif not was.startswith(("rc ", "input error", "-")) and was:
            out[job] = optimize_result(f) if job == "optimize" else cover_result(f)
    return out


def jobs(label, folder, top_file, top, params, steps, wall_s, actions="", cover_model=True) -> dict:
    """optimize and cover on one design from its files, each in its own run folder (resumed if there)."""
    import subprocess
    row = {"design": label}
    try:
        args = job_args(folder, top_file, top, params)
    except (DesignInputError, OSError, ValueError) as e:
        return {**row, "optimize": f"input error: {e}", "cover": "-"}
    opt = ["--steps", str(steps), "--no-pnr", *(["--actions", actions] if actions else [])]
    for job, extra in (("optimize", opt), ("cover", [] if cover_model else COVER_NO_MODEL)):
        out = job_folder(label, job, actions, cover_model)
        cmd = [sys.executable, "-m", "rtl_agent.cli", job, *args, "--out", str(out), *extra]
        if any(out.glob("*.sqlite")):
            cmd.append("--resume")
        if job == "optimize":
            cmd.append("--quiet")
        t0 = time.monotonic()
        try:
            r = subprocess.run(cmd, capture_output=True, text=True, timeout=wall_s)
            rc, tail = r.returncode, (r.stderr.strip() or r.stdout.strip()).splitlines()[-1:] or [""]
        except subprocess.TimeoutExpired:
            rc, tail = "timeout", [f"stopped after {wall_s} s (resumable: run again)"]
        row[f"{job}_s"] = round(time.monotonic() - t0, 1)
        # cover exits 1 when the target is not met: a result, in its summary.json
        done = rc == 0 or job == "cover" and rc == 1 and (out / "summary.json").exists()
        row[job] = (optimize_result(out) if job == "optimize" else cover_result(out)) if done else f"rc {rc}: {tail[0][:200]}"
        if rc == "timeout" and job == "optimize" and (out / "best.json").exists():
            row[job] = stopped_result(tail[0], out, steps)
        print(f"  {job}: {row[job]} ({row[f'{job}_s']} s)", flush=True)
    return row


def stopped_result(stop: str, out: Path, steps: int) -> str:
    """An optimize run its wall limit stopped: how far it got and its best design so far."""
    lines = (out / "events.jsonl").read_text().splitlines() if (out / "events.jsonl").exists() else []
    done = max((json.loads(x).get("step") or 0 for x in lines if '"kind": "step"' in x), default=0)
    return f"{stop} after step {done} of {steps}; best so far {optimize_result(out)}"


def optimize_result(out: Path) -> str:
    b = json.loads((out / "best.json").read_text())
    if b.get("source") == "reference":
        return "no better design proven (best is the reference)"
    verdict = "above noise" if b.get("above_noise") else f"below the noise floor {b.get('noise_floor', 0):.3f}"
    return f"{b['ratio']:.3f}x, {b.get('proof')}, {verdict}: {' > '.join(b.get('chain') or [b.get('kind') or '?'])}"[:300]


def cover_result(out: Path) -> str:
    s = json.loads((out / "summary.json").read_text())
    got = ", ".join(f"{k} {v['covered']}/{v['total']}" for k, v in s.get("coverage", {}).items())
    if not any(v["total"] for v in s.get("coverage", {}).values()) and s.get("why_uncovered"):
        return f"no coverage: {s['why_uncovered']}"
    reach = ", ".join(f"{k} {v['pct']:g}%" for k, v in (s.get("coverage_reachable") or {}).items() if v.get("pct") is not None)
    f = (s.get("formal") or {}).get("counts") or {}
    formal = (f"; formal: {f.get('witness', 0)} witnessed, {f.get('unreachable', 0)} proven unreachable, "
              f"{f.get('undecided', 0)} undecided; of reachable points {reach}"
              f"{' (met)' if s.get('met_reachable') else ''}") if f else ""
    return f"{'target met' if s.get('met') else 'target not met'} ({got}; {s.get('simulations')} simulations{formal})"


def jobs_report(rows, load0, load1, wall, steps, actions="", cover_model=True) -> str:
    body = [header("Real designs: optimize and cover from their files (issue 49)", {
        "machine load (1/5/15 min) before": load0, "after": load1, "wall time": f"{wall:.0f} s"}), "",
            f"`rtl-agent optimize FILES --top T [-P ...] --steps {steps} --no-pnr --quiet"
            f"{' --actions ' + actions if actions else ''}` and `rtl-agent cover FILES "
            f"--top T [-P ...]{'' if cover_model else ' ' + ' '.join(COVER_NO_MODEL)}` with default settings otherwise (no task folder, no testbench: candidates are judged by "
            "equivalence to the given design, with a random testbench recorded from it as a screen).", ""]
    table = [[r["design"], r.get("optimize", "-"), fmt(r.get("optimize_s")), r.get("cover", "-"), fmt(r.get("cover_s"))]
             for r in rows]
    body.append(md_table(pd.DataFrame(table, columns=["design", "optimize", "optimize s", "cover", "cover s"])))
    return "\n".join(body) + "\n"


def fmt(x, nd=4):
    return "-" if x is None else (f"{x:.{nd}g}" if isinstance(x, float) else str(x))


def report(rows, load_before, load_after, wall) -> str:
    body = [header("Real designs from ../shared/corpus (issue 49)", {
        "machine load (1/5/15 min) before": load_before, "after": load_after,
        "note": "2-core machine shared with 4 other agents; times are wall times under that load",
        "wall time": f"{wall:.0f} s"})]
    body += ["", "Each design as a user gives it: its files (submodules found by name), `-P` parameters, no task "
             "folder, no testbench. Stages on Nangate45: lint, synth, sta (`rtl-agent eval` without `--tb`); on "
             "Sky130: synth, sta. Self-equivalence: the design against itself through `rtl-agent equiv`'s engine.",
             ""]
    hdr = ["design", "files", "-P", "lines", "lint s", "synth s", "sta s", "Nangate45 area um2", "delay ns",
           "PPA um2*ns*W", "Sky130 area um2", "Sky130 delay ns", "Sky130 PPA", "self-equiv", "method", "equiv s"]
    table = []
    for r in rows:
        n, s, e = r.get("nangate45", {}), r.get("sky130hd", {}), r.get("self_equiv", {})
        ns = n.get("seconds", {})
        table.append([r["design"], " ".join(r["files"]), " ".join(f"{k}={v}" for k, v in r["params"].items()) or "-",
                      r.get("lines", "-"), fmt(ns.get("lint")), fmt(ns.get("synth")), fmt(ns.get("sta")),
                      fmt(n.get("area_um2")), fmt(n.get("delay_ns")), fmt(n.get("ppa")), fmt(s.get("area_um2")),
                      fmt(s.get("delay_ns")), fmt(s.get("ppa")), e.get("status", "-"), e.get("method") or "-",
                      fmt(e.get("seconds"))])
    body += [md_table(pd.DataFrame(table, columns=hdr)), "", "## Failures and their causes", ""]
    fails = []
    for r in rows:
        if r.get("status") == "input error":
            fails.append(f"- **{r['design']}**: input: {r['cause']}")
        for pdk in ("nangate45", "sky130hd"):
            x = r.get(pdk)
            if x and x["status"] != "pass":
                fails.append(f"- **{r['design']}** ({pdk}): {x['status']} at {x['failed_stage']}: {x['cause']}")
        e = r.get("self_equiv")
        if e and not e["status"].startswith("proven"):
            fails.append(f"- **{r['design']}** self-equivalence: {e['status']}: {e['note']}")
    body += fails or ["none"]
    return "\n".join(body) + "\n"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--only", default="", help="comma list of design labels (prefix match)")
    ap.add_argument("--equiv-timeout", type=float, default=60.0)
    ap.add_argument("--out", default=str(OUT / "real_designs"))
    ap.add_argument("--jobs", action="store_true", help="run optimize and cover on each design instead")
    ap.add_argument("--steps", type=int, default=5)
    ap.add_argument("--job-wall-s", type=int, default=900)
    ap.add_argument("--report-only", default="", metavar="LOAD",
                    help="with --jobs: rewrite the report from the last pass's rows and run folders; LOAD is that "
                    "pass's machine load, for the header")
    ap.add_argument("--no-cover-model", action="store_true", help="cover: random and formal only, "
                    "every simulation of the budget random (" + " ".join(COVER_NO_MODEL) + ")")
    ap.add_argument("--actions", default="", help="optimize --actions of the jobs (default: optimize's own); "
                    "e.g. transform: only the policy's choices among the verified transformations")
    a = ap.parse_args()
    pick = [d for d in DESIGNS if not a.only or any(d[0].startswith(o) for o in a.only.split(","))]
    load0, t0, rows = open("/proc/loadavg").read().split()[:3], time.monotonic(), []
    if a.jobs and a.report_only:         # the last pass's rows, results read again from their folders
        rows = [reread(r, a.steps, a.actions, not a.no_cover_model)
                for r in json.loads((OUT / "real_designs_jobs.json").read_text())]
        Path(str(OUT / "real_designs_jobs") + ".json").write_text(json.dumps(rows, indent=1))
        wall = sum(r.get("optimize_s") or 0 for r in rows) + sum(r.get("cover_s") or 0 for r in rows)
        write_with_reading(OUT / "real_designs_jobs.md", jobs_report(rows, a.report_only, "(report rewritten)", wall,
                                                                      a.steps, a.actions, not a.no_cover_model))
        return
    if a.jobs:
        for d in pick:
            print(f"{d[0]} ...", flush=True)
            rows.append(jobs(*d, a.steps, a.job_wall_s, a.actions, not a.no_cover_model))
            Path(str(OUT / "real_designs_jobs") + ".json").write_text(json.dumps(rows, indent=1))
            load1 = open("/proc/loadavg").read().split()[:3]
            write_with_reading(OUT / "real_designs_jobs.md", jobs_report(rows, " ".join(load0), " ".join(load1),
                                                                          time.monotonic() - t0, a.steps, a.actions,
                                                                          not a.no_cover_model))
        return
    for d in pick:
        print(f"{d[0]} ...", flush=True)
        rows.append(one(*d, a.equiv_timeout))
        r = rows[-1]
        print(f"  {r.get('status')}: nangate45 {r.get('nangate45', {}).get('ppa')}, "
              f"self-equiv {r.get('self_equiv', {}).get('status')}", flush=True)
        Path(a.out + ".json").write_text(json.dumps(rows, indent=1))
    load1 = open("/proc/loadavg").read().split()[:3]
    write_with_reading(Path(a.out + ".md"), report(rows, " ".join(load0), " ".join(load1), time.monotonic() - t0))
    print(Path(a.out + ".md").read_text())


if __name__ == "__main__":
    os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
    main()
