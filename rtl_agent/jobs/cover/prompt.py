"""The model's prompt: this run's holes in the stimulus prompt of rtl_agent.prompts, with as much of
the DUT as the policy's context holds (training's one prompt-budget rule, policy.base.prompt_budget)."""
from __future__ import annotations

from eda import coverage as cov
from rtl_agent.policy.base import prompt_budget
from rtl_agent.prompts.stimulus import stimulus_prompt

from .config import CoverConfig
from .targets import holes


def build_prompt(task, db: cov.CoverageDB, cfg: CoverConfig, fits=None, random_runs: int = 0) -> list:
    """Chat messages: the stimulus prompt (system, one worked example unless cfg.example is off, then
    this DUT with a few of this run's holes). The whole DUT is shown when `fits(messages)` (the
    policy's token count against its budget) says so, else the longest clip that fits; without
    `fits`, prompt_budget(None, cfg.max_tokens): Policy.count_tokens's estimate against its context."""
    code = "\n".join(task.reference_sources().values())
    todo = holes(db, list(cfg.target), cfg.prompt_points) if db.points else []
    spec = (task.spec or "").strip()
    spec = spec if len(spec) <= cfg.max_spec else spec[:cfg.max_spec] + " ..."
    if fits is None:
        count, budget = prompt_budget(None, cfg.max_tokens)

        def fits(msgs):
            return count(msgs) <= budget

    def build(max_code):
        return stimulus_prompt(spec, code, task.top, todo, max_items=cfg.prompt_points, max_code=max_code,
                               random_runs=random_runs, example=cfg.example)
    if fits(build(len(code) + 1)):
        return build(len(code) + 1)
    lo, hi, best = 200, len(code), 200
    while lo <= hi:
        mid = (lo + hi) // 2
        if fits(build(mid)):
            best, lo = mid, mid + 1
        else:
            hi = mid - 1
    return build(best)
