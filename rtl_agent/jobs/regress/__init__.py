"""Regression of a policy on a suite (`rtl-agent regress`): pass@k and PPA against the references.

  run         score_design (every candidate through the task's calibrated FlowJob), run_regression
  candidates  where candidates come from: the reference, a folder of files, a model
  report      summary.md / report.html
"""
from .run import FAIL_ORDER, calibrate, pass_at_k, run_regression, score_design, summarize_design

__all__ = ["FAIL_ORDER", "calibrate", "pass_at_k", "run_regression", "score_design", "summarize_design"]
