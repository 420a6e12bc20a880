"""`rtl-agent cover --replay RUN`: the kept suite run again, its points compared with the recorded ones."""
from __future__ import annotations

import json
from pathlib import Path

from eda import coverage as cov
from eda import fsm

from .config import CoverConfig
from .env import _limits, simulate


def replay(run_dir: Path, log=print) -> dict:
    """`rtl-agent cover --replay RUN`: run the kept suite again (suite/manifest.json) and compare the
    points it reaches with the ones recorded. Returns {"coverage", "recorded", "same", "runs"}."""
    from designs import load_task
    run_dir = Path(run_dir)
    mf = run_dir / "suite" / "manifest.json"
    if not mf.is_file():
        raise ValueError(f"{run_dir}: no suite/manifest.json (not a cover run folder, or one from before --replay)")
    m = json.loads(mf.read_text())
    task = load_task(m["task"])
    sources = task.reference_sources()
    db, runs, files = cov.CoverageDB(sources), [], {}
    for e in m["entries"]:
        files.setdefault(e["file"], []).append(e["plusargs"])
    lim = _limits(CoverConfig())
    fsms = fsm.extract(sources, task.top) if task.clock else []
    for name, args in files.items():
        text = (run_dir / "suite" / name).read_text()
        if name.endswith(".py"):
            res = [simulate(task, sources, text, CoverConfig())]
        else:
            res = cov.coverage_runs(sources, task.top, text, args, limits=lim, ports=task.ports, clock=task.clock,
                                    period_ns=task.period_ns, fsms=fsms)
        for a, r in zip(args, res):
            runs.append({"file": name, "plusargs": a, "status": r.status})
            log(f"{name} {' '.join(a)}: {r.status}")
            if r.ok:
                db.add(r.points)
    got = {t: c for t, (c, n) in db.summary().items()}
    rec = {t: c for t, c in m["covered"].items()}
    return {"coverage": {t: list(v) for t, v in db.summary().items()}, "recorded": rec,
            "same": all(got.get(t, 0) == c for t, c in rec.items()), "runs": runs}
