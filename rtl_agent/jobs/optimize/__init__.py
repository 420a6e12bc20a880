"""Per-design test-time RL (`rtl-agent optimize`): adapt the policy to one design with EDA feedback and
keep the best design proven equivalent to the reference.

  config   OptimizeConfig, penalties, the keys a resume must match
  env      OptimizeEnv: PUCT-selected parents, groups of the bandit's action kinds, scoring
  kinds/   the action kinds (one module and one registry line each) and the Toolkit they are given: prompt
           view, prefill, stop, edit group, extraction (edits, re-prompts)
  reward   the reward of one report (penalty by failed stage, or log PPA ratio for a proof)
  stop     when a run has nothing left to try: it ends before its step budget and says why
  outputs  best.v, best.json, candidates.csv, report.html (from the store)
  report   report.html;  view: the live terminal view
  run      policies, make_loop, optimize(cfg)
"""
from training.loop import step_seed

from .config import PENALTIES, RESUME_KEYS, OptimizeConfig
from .env import OptimizeEnv, _join
from .outputs import write_outputs
from .reward import score
from .run import build_policies, make_loop, optimize, summary

__all__ = ["OptimizeConfig", "OptimizeEnv", "optimize", "make_loop", "summary", "build_policies", "score",
           "PENALTIES", "RESUME_KEYS", "step_seed", "write_outputs", "_join"]
