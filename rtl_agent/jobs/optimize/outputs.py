"""The run folder's files, derived from the store, so a resumed run rewrites them whole: best.v,
best.json, candidates.csv, report.html."""
from __future__ import annotations

import csv
import io
import json
from pathlib import Path

from eda.fsutil import atomic_write
from eda.sandbox import isolation_mode
from training.store import RunStore

from .report import render_html


def write_outputs(out: Path, store: RunStore):
    steps = store.steps()
    if not steps:
        return
    best = steps[-1]["stats"]["state"]["env"]["best"]
    atomic_write(out / "best.v", best["code"])
    atomic_write(out / "best.json", json.dumps({**{k: v for k, v in best.items() if k != "code"},
                                                "isolation": isolation_mode()}, indent=2))   # bwrap | off
    cands = store.candidates()
    buf = io.StringIO()
    w = csv.writer(buf)
    w.writerow(["step", "idx", "grp", "parent", "pool_id", "status", "failed_stage", "reward", "ppa_ratio",
                "area_um2", "delay_ns", "power_w", "ppa", "tokens", "finish", "action", "applied", "mode",
                "prompt_tokens", "prefill", "kind", "chain"])
    for c in cands:
        rp, m, sm = c["payload"], c["metrics"], c["sample"]
        cd = rp.get("candidate") or {}
        w.writerow([c["step"], c["idx"], c["grp"], c["parent"], rp.get("pool_id"), c["status"], c["failed"],
                    c["reward"], rp.get("ratio"), m.get("area"), m.get("delay"), m.get("power"), m.get("ppa"),
                    sm.get("tokens"), sm.get("finish"), cd.get("action"),
                    "" if cd.get("applied") is None else int(cd["applied"]),
                    sm.get("mode"), sm.get("prompt_tokens"), int(bool(sm.get("prefill"))),
                    cd.get("kind") or sm.get("action_kind") or "", " > ".join(cd.get("chain") or [])])
    atomic_write(out / "candidates.csv", buf.getvalue())
    atomic_write(out / "report.html", render_html(steps, cands, store.decisions(), best, store.meta("config"),
                                                  routed=_routed(out)))


def _routed(out: Path) -> dict | None:
    """The end-of-run place-and-route check (jobs/optimize/routed.py: pnr.json, layout.png), when it ran."""
    try:
        got = json.loads((out / "pnr.json").read_text())
    except (OSError, ValueError):
        return None
    return {**got, "layout": "layout.png" if (out / "layout.png").is_file() else None}
