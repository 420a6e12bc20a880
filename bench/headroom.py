"""Headroom map: how much better than the reference can a design get under our flow and proofs?

For every RTLLM v2.0 design and every project task, hand-written rewrites aimed at PPA live in
bench/headroom/<design>/*.v (measurement only: never training data, never in a prompt; the SFT data
builder refuses them). Each file starts with two comment lines:

    // kind: arith | width | share | decode | idle | encoding | retime | other
    // change: one sentence on what it changes and why synthesis cannot do it by itself

Each rewrite goes through the task's own flow (lint, simulation, equivalence modulo the task's
don't-cares, synthesis, STA) on Nangate45 and Sky130; only a proven rewrite counts. The design's
noise floor (rtl_agent.noise: PPA spread of semantics-preserving perturbations of the reference) is
measured beside it; a gain counts as headroom only above the floor.

    python bench/headroom.py check adder_32bit          # one design's rewrites, both PDKs (for writing them)
    python bench/headroom.py run [--designs a,b] [--no-noise]   # the map -> bench/results/headroom.{md,csv,json}
"""
from __future__ import annotations

import argparse
import json
import re
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.headroom_map import HEADROOM, PDKS  # noqa: E402 - after the path: run as a script too

KINDS = ("arith", "width", "share", "decode", "idle", "encoding", "retime", "other")


def rewrites(design: str) -> list[Path]:
    d = HEADROOM / design
    return sorted(d.glob("*.v")) if d.is_dir() else []


def header(path: Path) -> dict:
    text = path.read_text()
    kind = re.search(r"^//\s*kind:\s*(\S+)", text, re.M)
    change = re.search(r"^//\s*change:\s*(.+)$", text, re.M)
    return {"kind": kind.group(1) if kind else "other", "change": change.group(1).strip() if change else ""}


def _job(task, pdk):
    from eda.flow import calibrate
    return calibrate(task.flow_job(pdk), task.reference_sources(), against_itself=True)


def measure(task, pdk: str, files: list[Path]) -> dict:
    """{"ref": Report, "variants": [(path, Report)]} on one PDK."""
    from eda.flow import evaluate
    job, ref = _job(task, pdk)
    out = []
    for p in files:
        out.append((p, evaluate(job, {f"{task.top}.v": p.read_text()})))
    return {"ref": ref, "variants": out, "job": job}


def _ratio(ref, rep) -> float | None:
    if not (ref.ppa and rep.ppa and rep.ppa > 0 and rep.ok):
        return None
    return ref.ppa / rep.ppa


def check(design: str) -> int:
    from designs import load_task
    task, files = load_task(design), rewrites(design)
    if not files:
        print(f"no rewrites under {HEADROOM / design}")
    for pdk in PDKS:
        m = measure(task, pdk, files)
        r = m["ref"]
        print(f"[{pdk}] reference: {r.status} equiv={r.equiv_status} area={r.area_um2} delay={r.delay_ns} "
              f"power={r.power_w} ppa={r.ppa}")
        for p, rep in m["variants"]:
            ratio = _ratio(r, rep)
            why = "" if rep.ok else f" failed at {rep.failed_stage}: {rep.failure_reason[:300]}"
            print(f"  {p.name}: {rep.status} equiv={rep.equiv_status} area={rep.area_um2} delay={rep.delay_ns} "
                  f"power={rep.power_w} ratio={ratio and round(ratio, 3)}{why}")
    return 0


def _design_row(task, noise: bool) -> dict:
    """One design: its reference on both PDKs, every rewrite's verdict and ratio, its noise floor."""
    from rtl_agent.noise import noise_floor
    files, row = rewrites(task.name), {"design": task.name, "rewrites": []}
    for pdk in PDKS:
        try:
            m = measure(task, pdk, files)
        except Exception as e:          # a reference that does not pass its own flow: listed with the reason
            row[f"{pdk}_error"] = f"{type(e).__name__}: {e}"[:300]
            continue
        ref = m["ref"]
        if not ref.ok or not ref.ppa:
            row[f"{pdk}_error"] = f"reference {ref.status} at {ref.failed_stage}: {ref.failure_reason[:200]}"
            continue
        row[f"{pdk}_ref_ppa"] = ref.ppa
        row[f"{pdk}_ref_equiv"] = ref.equiv_status
        for p, rep in m["variants"]:
            e = next((x for x in row["rewrites"] if x["file"] == p.name), None)
            if e is None:
                e = {"file": p.name, **header(p)}
                row["rewrites"].append(e)
            e[f"{pdk}_status"], e[f"{pdk}_equiv"] = rep.status, rep.equiv_status
            e[f"{pdk}_ratio"] = _ratio(ref, rep) if _counts(rep, task) else None
            e[f"{pdk}_area"], e[f"{pdk}_delay"], e[f"{pdk}_power"] = rep.area_um2, rep.delay_ns, rep.power_w
            if not rep.ok:
                e[f"{pdk}_why"] = f"{rep.failed_stage}: {rep.failure_reason[:200]}"
        if noise and pdk == "nangate45":
            nf = noise_floor(m["job"], task.reference_sources(), task.top, ref_ppa=ref.ppa)
            row["noise"] = nf.floor
            row["noise_detail"] = nf.to_dict()
    return row


def _counts(rep, task) -> bool:
    from eda.report import is_proven
    return rep.ok and is_proven(rep.equiv_status or "")


def run(argv) -> int:
    from tqdm import tqdm
    from bench.headroom_report import write_report
    from designs import load_suite, load_task
    ap = argparse.ArgumentParser(prog="headroom.py run")
    ap.add_argument("--designs", default="", help="comma list (default: every RTLLM design and project task)")
    ap.add_argument("--no-noise", action="store_true", help="skip the noise floor (faster)")
    ap.add_argument("--out", default=str(ROOT / "bench" / "results" / "headroom"))
    a = ap.parse_args(argv)
    if a.designs:
        tasks = [load_task(n) for n in a.designs.split(",")]
    else:
        tasks = load_suite("rtllm", skip_missing=True) + load_suite("designs")
    out = Path(a.out + ".json")
    # a design is measured again only when its rewrites changed (or --designs names it)
    rows = {r["design"]: r for r in json.loads(out.read_text())["rows"]} if out.exists() else {}
    t0 = time.time()
    for t in tqdm(tasks, desc="headroom"):
        fp = fingerprint(t.name)
        if t.name in rows and rows[t.name].get("fingerprint") == fp and not a.designs:
            continue
        s = time.time()
        row = _design_row(t, noise=not a.no_noise)
        row["suite"] = "rtllm" if t.source == "rtllm" else "project"
        row["seconds"] = round(time.time() - s, 1)
        row["fingerprint"] = fp
        rows[t.name] = row
        out.write_text(json.dumps({"rows": list(rows.values())}, indent=1, default=str))
    write_report(list(rows.values()), Path(a.out), time.time() - t0)
    return 0


def fingerprint(design: str) -> str:
    import hashlib
    h = hashlib.sha256()
    for p in rewrites(design):
        h.update(p.name.encode() + b"\0" + p.read_bytes())
    return h.hexdigest()[:16]


def main(argv=None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if not argv or argv[0] not in ("check", "run"):
        print(__doc__)
        return 2
    if argv[0] == "check":
        return check(argv[1])
    return run(argv[1:])


if __name__ == "__main__":
    sys.exit(main())
