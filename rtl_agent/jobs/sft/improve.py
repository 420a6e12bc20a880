"""Improvement pairs for `rtl-agent sft --kind improve`: a design and its EDA report -> a better design.

From each generated design family (rtl_agent.jobs.sft.generator; the `improve` families are the ones whose
variants synthesize differently), every variant goes through the real flow (data._check_design: lint,
equivalence with the family's first variant, synthesis and STA on Nangate45). For each ordered pair
(worse, better) whose PPA ratio worse/better is >= MIN_RATIO (well above synthesis noise), the candidate
answer is checked again with the worse variant as the reference, exactly as the optimize job would judge it
(equivalence proven against worse, its own PPA, the ratio recomputed), and then emitted in the optimize job's
formats, the prompt being prompts.edit_prompt with the worse variant as the current design and its report as
the job shows it (optimize.reward._slim):

    improve-full   action full; prefill: the fence and the parent's own module header (prompts.parent_header,
                   OptimizeConfig.header); answer: the better design's body (the checked text is that header
                   plus the body)
    improve-diff   action diff; prefill "```verilog\\n<<<<<<< SEARCH\\n"; answer: SEARCH/REPLACE blocks turning
                   worse into better (data.diff_blocks, which checks they reproduce it)
    improve-line   only where the change is one statement keeping its left-hand side: the optimize job's
                   default one-line edit (SEARCH prefilled with that statement and its left-hand side up to `=`)

    pairs, stats = generated_improve(seed=0, per_family=4)
"""
from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

from eda.pdk import DEFAULT_PDK
from rtl_agent import prompts
from rtl_agent.focus import View

from . import data as sft_data

MIN_RATIO = 1.10
KINDS = ("improve-full", "improve-diff", "improve-line")


def _judge(top, worse, cand, pdk, clock, reset):
    """The flow's report of cand with worse as the reference (lint, equivalence, synthesis, STA)."""
    from eda.flow import FlowJob, evaluate
    job = FlowJob(top=top, pdk=pdk, ref={f"{top}.v": worse}, clock=clock, reset=reset,
                  stages=("lint", "equiv", "synth", "sta"), use_cache=False)
    return evaluate(job, {f"{top}.v": cand})


def other_pdk_ratio(top, worse, better, pdk, clock, reset) -> float | None:
    """PPA_worse / PPA_better on another library: synthesis and STA only (the proof does not depend on the
    library). A gain that one library's mapping gives and another's does not (mult8's `a * b`: 1.587x on
    Nangate45, 0.988x on Sky130) teaches no better design."""
    from eda.flow import FlowJob, evaluate
    job = FlowJob(top=top, pdk=pdk, clock=clock, reset=reset, stages=("synth", "sta"))
    w, b = (evaluate(job, {f"{top}.v": t}) for t in (worse, better))
    return w.ppa / b.ppa if w.ok and b.ok and w.ppa and b.ppa and b.ppa > 0 else None


def _better(rep, worse_ppa: float, min_ratio: float) -> float | None:
    """worse/better PPA ratio when rep (an eda.report.Report) passes, is proven equivalent and clears
    min_ratio, else None."""
    from eda.report import is_proven
    ppa = rep.ppa
    if not rep.ok or not is_proven(rep.equiv_status or "") or not ppa or ppa <= 0:
        return None
    r = worse_ppa / ppa
    return r if r >= min_ratio else None


def full_answer(worse: str, better: str, top: str) -> tuple[str, str, str] | None:
    """(prefill, answer, checked code) of a full rewrite prefilled with the parent's header, or None when
    either design has no ANSI header to split at."""
    head = prompts.parent_header(worse, top)
    end = prompts.header_end(better, top)
    if head is None or end is None:
        return None
    body = better[end:].lstrip("\n").rstrip() + "\n"
    return "```verilog\n" + head, body.rstrip() + "\n```", head + body


def line_answer(worse: str, better: str) -> tuple[str, str] | None:
    """(prefill, answer) in the optimize job's one-line format (keep_lhs) when better is worse with one
    statement line replaced by one line with the same left-hand side; else None."""
    from rtl_agent.edits import is_target
    a, b = worse.splitlines(), better.splitlines()
    if len(a) != len(b):
        return None
    diff = [i for i in range(len(a)) if a[i] != b[i]]
    if len(diff) != 1 or not is_target(a[diff[0]]):
        return None
    old, new = a[diff[0]], b[diff[0]]
    head = prompts.edit_head(old, True)
    if not new.startswith(head):
        return None
    pre = prompts.prefill_for("diff", "") + prompts.target_prefill(old, True, True)
    return pre, new[len(head):] + "\n"


def pairs_for(d, ok: list, pdk=DEFAULT_PDK, min_ratio=MIN_RATIO, confirm_pdk=None) -> tuple[list, list]:
    """(pairs, found) of one design: ok is data._check_design's [(variant, report)]; found lists
    {worse, better, ratio, kinds} for every (worse, better) that cleared the checks. With confirm_pdk, a pair
    must clear min_ratio on that library too (other_pdk_ratio); the ones that do not are listed with
    kinds [] and their ratio there."""
    from rtl_agent.jobs.optimize.reward import _slim
    src = f"gen:{d.family}"
    ranked = sorted(((v, r) for v, r in ok if (r.ppa or 0) > 0), key=lambda x: -x[1].ppa)
    out, found = [], []
    for i, (worse, wrep) in enumerate(ranked):
        report = _slim(wrep)
        view = View("whole", worse, None, len(worse.splitlines()))
        for better, brep in ranked[i + 1:]:
            if wrep.ppa / brep.ppa < min_ratio:
                continue
            other = other_pdk_ratio(d.top, worse, better, confirm_pdk, d.clock, d.reset) if confirm_pdk else None
            if confirm_pdk and (other or 0) < min_ratio:
                found.append({"family": d.family, "top": d.top, "ratio": round(wrep.ppa / brep.ppa, 3),
                              "kinds": [], "other_pdk_ratio": other and round(other, 3)})
                continue
            kinds = []
            full = full_answer(worse, better, d.top)
            if full:
                ratio = _better(_judge(d.top, worse, full[2], pdk, d.clock, d.reset), wrep.ppa, min_ratio)
                if ratio:
                    msgs = prompts.edit_prompt(d.spec, view, report, d.top, "full")
                    out.append(sft_data.example("improve-full", src, msgs, full[0], full[1]))
                    kinds.append("improve-full")
            ratio = _better(_judge(d.top, worse, better, pdk, d.clock, d.reset), wrep.ppa, min_ratio)
            if ratio:
                blocks = sft_data.diff_blocks(worse, better)
                if blocks:
                    msgs = prompts.edit_prompt(d.spec, view, report, d.top, "diff")
                    out.append(sft_data.example("improve-diff", src, msgs, prompts.prefill_for("diff", d.top),
                                                blocks[len("<<<<<<< SEARCH\n"):] + "```"))
                    kinds.append("improve-diff")
                line = line_answer(worse, better)
                if line:
                    msgs = prompts.edit_prompt(d.spec, view, report, d.top, "diff")
                    out.append(sft_data.example("improve-line", src, msgs, *line))
                    kinds.append("improve-line")
            if kinds:
                found.append({"family": d.family, "top": d.top, "worse_ppa": wrep.ppa, "better_ppa": brep.ppa,
                              "ratio": round(wrep.ppa / brep.ppa, 3), "kinds": kinds})
    return out, found


def generated_improve(seed=0, per_family=4, pdk=DEFAULT_PDK, workers=2, log=print, families="improve",
                      min_ratio=MIN_RATIO, confirm_pdk=None) -> tuple[list, dict]:
    """Improvement pairs from the generated designs of `families`; (pairs, counts for the manifest)."""
    from .generator import designs
    ds = designs(seed, per_family, families)

    def one(d):
        ok = sft_data._check_design(d, pdk)
        return ok, pairs_for(d, ok, pdk, min_ratio, confirm_pdk)
    with ThreadPoolExecutor(max(1, workers)) as ex:
        res = list(ex.map(one, ds))
    pairs, found, n_ok, dropped = [], [], 0, []
    for ok, (p, f) in res:
        n_ok += len(ok)
        pairs += p
        found += [x for x in f if x["kinds"]]
        dropped += [x for x in f if not x["kinds"]]
    kinds = {k: sum(p["kind"] == k for p in pairs) for k in KINDS}
    fams = sorted({f["family"] for f in found})
    log(f"improve: {len(ds)} designs, {n_ok}/{sum(len(d.variants) for d in ds)} variants verified; "
        f"{len(found)} (worse, better) pairs >= {min_ratio}x proven; pairs by kind {kinds}"
        + (f"; {len(dropped)} left out for a gain below {min_ratio}x on {confirm_pdk}" if confirm_pdk else ""))
    return pairs, {"designs": len(ds), "variants": sum(len(d.variants) for d in ds), "verified": n_ok,
                   "families": families, "seed": seed, "per_family": per_family, "min_ratio": min_ratio,
                   "improvements": len(found), "families_with_improvements": fams, "by_kind": kinds,
                   "ratios": sorted(f["ratio"] for f in found),
                   **({"confirm_pdk": confirm_pdk, "left_out_on_confirm_pdk": len(dropped)} if confirm_pdk else {})}
