"""Regression of a policy on a suite: pass@k and PPA against the reference, resumable.

Per design the run folder keeps `designs/<name>.json` (written once the design is finished) and, for
model policies, the generated samples in `samples/<name>/s<i>.v`, so a killed run resumes where it stopped.
"""
import json
import math
import time
from pathlib import Path

from eda.flow import calibrate as flow_calibrate, evaluate
from eda.fsutil import atomic_write
from eda.pnr import Routed
from eda.report import is_proven, is_unproven
from eda.sandbox import isolation_mode
from eda.stages import STAGES

FAIL_ORDER = ("extract",) + STAGES    # fail_<stage> columns; extract: no Verilog in the policy's answer


def pass_at_k(n: int, c: int, k: int) -> float:
    """Unbiased pass@k (Chen et al. 2021): 1 - C(n-c, k) / C(n, k)."""
    if n < k:
        return float("nan")
    if n - c < k:
        return 1.0
    return 1.0 - math.prod((n - c - i) / (n - i) for i in range(k))


def reference_row(rep) -> dict:
    """The reference's calibration report as the run folder keeps it."""
    sim = rep.stages.get("sim")
    return {"status": rep.status, "failed_stage": rep.failed_stage, "ppa": rep.ppa, "area_um2": rep.area_um2,
            "delay_ns": rep.delay_ns, "power_w": rep.power_w,
            "simulator": sim.data.get("simulator") if sim else None,
            "cause": rep.failure_reason}


def calibrate(task, pdk: str) -> dict:
    """Score the reference with its own testbench; the simulator it passes with is used for candidates
    (eda.flow.calibrate)."""
    return reference_row(flow_calibrate(task.flow_job(pdk, equiv=False), task.reference_sources())[1])


def candidate_row(label, rep, equiv: bool) -> dict:
    fs = rep.failed_stage
    eq = rep.equiv_status
    return {"sample": label, "status": rep.status, "failed_stage": fs,
            "reason": rep.failure_reason[:300],
            "ppa": rep.ppa, "area_um2": rep.area_um2, "delay_ns": rep.delay_ns, "power_w": rep.power_w,
            "func": "sim" in rep.stages and rep.stages["sim"].ok and (not equiv or bool(eq and is_proven(eq))),
            "syntax": "lint" in rep.stages and rep.stages["lint"].ok, "equiv": eq,
            "equiv_mode": rep.stages["equiv"].data.get("equiv_mode") if "equiv" in rep.stages else None}


def routed_row(job, task) -> dict:
    """The reference placed and routed (the pnr stage after its synthesis and timing: `regress --pnr`)."""
    rep = evaluate(job.replace(stages=tuple(job.stages) + ("pnr",)), task.reference_sources())
    r = Routed.of(rep) if rep.ok else None
    if r is None:
        st = rep.stages.get("pnr")
        bad = st or rep.stages.get(rep.failed_stage)
        why = bad.diagnostics[0].message if bad and bad.diagnostics else rep.status
        return {"pnr_status": st.status if st else f"not reached ({rep.failed_stage})", "pnr_reason": why[:300]}
    return {"pnr_status": "pass", "pnr_s": round(r.seconds, 1), "routed_delay_ns": r.delay_ns,
            "routed_power_w": r.power_w, "routed_area_um2": r.area_um2, "core_area_um2": r.core_area_um2,
            "routed_ppa": r.ppa, "wirelength_um": r.wirelength_um, "vias": r.vias, "drc": r.drc}


def score_design(task, candidates: list, pdk: str, equiv: bool = False, pnr: bool = False) -> dict:
    """candidates: list of (label, sources dict or None, reason-if-None). pnr: the reference is placed and
    routed too (its row gains the routed numbers)."""
    job, ref_rep = flow_calibrate(task.flow_job(pdk, equiv=equiv), task.reference_sources())
    rows = []
    for label, src, why in candidates:
        if src is None:
            rows.append({"sample": label, "status": "fail", "failed_stage": "extract", "reason": why, "ppa": None})
            continue
        rows.append(candidate_row(label, evaluate(job, src), equiv))
    rule = getattr(task, "observe", None)
    ref_row = reference_row(ref_rep)
    if pnr and ref_rep.ok:
        ref_row.update(routed_row(job, task))
    return {"design": task.name, "category": task.category, "reference": ref_row, "samples": rows,
            "notes": list(task.notes), "isolation": isolation_mode(),
            # which equivalence decided: strict (every output, every cycle) or spec (the task's observe rule)
            "equiv_mode": ("spec" if rule else "strict") if equiv else "",
            "observe": rule.rules() if rule and equiv else []}


def summarize_design(d: dict, ks) -> dict:
    rows = d["samples"]
    n = len(rows)
    syn = sum(1 for r in rows if r.get("syntax"))
    func = sum(1 for r in rows if r.get("func"))
    ppas = [r["ppa"] for r in rows if r.get("func") and r.get("ppa")]
    best = min(ppas) if ppas else None
    ref = d["reference"]
    out = {"design": d["design"], "category": d["category"], "samples": n, "syntax_pass": syn, "func_pass": func}
    for k in ks:
        out[f"pass@{k}"] = pass_at_k(n, func, k)
    out.update({"best_ppa": best, "ref_ppa": ref["ppa"],
                "ppa_ratio": best / ref["ppa"] if best and ref["ppa"] else None,
                "ref_status": ref["status"], "simulator": ref["simulator"] or "",
                "isolation": d.get("isolation", "")})   # bwrap, or off (--no-isolation)
    # with --equiv only a proof passes; bounded/cosim verdicts are counted here, never as func_pass
    out["equiv_proven"] = sum(1 for r in rows if r.get("equiv") and is_proven(r["equiv"]))
    out["equiv_unproven"] = sum(1 for r in rows if r.get("equiv") and is_unproven(r["equiv"]))
    out["equiv_mode"] = d.get("equiv_mode", "")
    out["observe"] = "; ".join(d.get("observe", []))
    for st in FAIL_ORDER:
        out[f"fail_{st}"] = sum(1 for r in rows if r.get("failed_stage") == st)
    out["notes"] = " ".join(d.get("notes", []))[:300]
    out.update({f"ref_{k}": v for k, v in ref.items() if k.startswith(("pnr_", "routed_", "core_")) or
                k in ("wirelength_um", "vias", "drc")})     # regress --pnr only
    return out


def _work(args):
    task, cands, pdk, equiv, pnr = args
    return score_design(task, cands, pdk, equiv, pnr)


def run_regression(tasks, policy, out: Path, n: int, ks, pdk: str | None, jobs: int, equiv: bool,
                   progress=None, log=print, executor=None, pnr: bool = False) -> list[dict]:
    """Evaluate every task; skip the ones already finished in `out`. Returns per-design dicts.
    `executor` (rtl_agent.executor; default a local pool of `jobs`) runs the per-design scoring; this
    driver alone writes the run folder, as results come back."""
    out.mkdir(parents=True, exist_ok=True)
    done, todo = {}, []
    for t in tasks:
        f = out / "designs" / f"{t.name}.json"
        if f.is_file():
            try:
                done[t.name] = json.loads(f.read_text())
                continue
            except ValueError:
                pass  # half-written by a killed run: redo
        todo.append(t)
    if done:
        log(f"resuming: {len(done)} design(s) already finished in {out}, {len(todo)} to go")
    t0 = time.monotonic()
    ready = bool(todo and hasattr(policy, "prefetch") and policy.prefetch(todo, n, out / "samples", log=log))
    jobs_args = ((t, policy.candidates(t, n, out / "samples" / t.name), pdk or t.pdk, equiv, pnr)
                 for t in todo)
    if executor is None:
        from rtl_agent.executor import LocalExecutor
        executor = LocalExecutor(jobs if policy.parallel_ok or ready else 1)
    for d in executor.map(_work, jobs_args):
        atomic_write(out / "designs" / f"{d['design']}.json", json.dumps(d, indent=1, default=str))
        done[d["design"]] = d
        progress and progress(d["design"])
    log(f"evaluated {len(todo)} design(s) in {time.monotonic() - t0:.1f} s")
    return [done[t.name] for t in tasks if t.name in done]
