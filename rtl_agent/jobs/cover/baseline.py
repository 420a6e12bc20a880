"""The constrained-random baseline at the job's budget (`--baseline`), plotted beside the agent."""
from __future__ import annotations

import json
from pathlib import Path

from eda import coverage as cov
from eda import fsm
from eda.fsutil import atomic_write
from eda.random_stim import seeded_stimulus

from .config import CoverConfig
from .targets import _pcts


def run_baseline(task, sources, out: Path, cfg: CoverConfig) -> dict:
    """Constrained-random stimulus at the same budget (seeded_stimulus: one build, `budget` runs,
    +seed=0..budget-1), cumulative coverage after each run. Kept in baseline.json (computed once)."""
    path = out / "baseline.json"
    if path.exists():
        try:
            return json.loads(path.read_text())
        except ValueError:
            pass
    text = seeded_stimulus(task.ports, task.top, clock=task.clock, reset=task.reset,
                           reset_active_low=task.reset_active_low, cycles=200, seed=0,
                           period_ns=task.period_ns)
    res = cov.coverage_runs(sources, task.top, text, [[f"+seed={s}"] for s in range(cfg.budget)], clock=task.clock,
                            fsms=fsm.extract(sources, task.top) if task.clock else [])
    db, curve = cov.CoverageDB(sources), []
    for r in res:
        if r.ok:
            db.add(r.points)
        curve.append({k: (list(v) if v else None) for k, v in _pcts(db).items()})
    data = {"budget": cfg.budget, "status": [r.status for r in res], "curve": curve,
            "final": {t: list(v) for t, v in db.summary().items()}, "percent": round(db.percent(), 2)}
    atomic_write(path, json.dumps(data, indent=1))
    return data
