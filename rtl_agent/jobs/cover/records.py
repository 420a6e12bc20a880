"""Simulation records: one per simulation, the stored row with its payload's fields at the top, and the
coverage union rebuilt from them (a resumed run rebuilds its state from the store, never a checkpoint)."""
from __future__ import annotations

from eda import coverage as cov
from training.store import RunStore

from .config import RANDOM
from .targets import _covered, points_of


def _record(stored: dict) -> dict:
    """One simulation's record: the stored row with its payload's fields at the top."""
    return {**stored, **stored["payload"]}


def _state(store: RunStore):
    """Simulation records of the committed steps, in simulation order."""
    sims = [_record(c) for c in store.candidates()]
    sims.sort(key=lambda s: s["sim"])
    return sims


def _union(sims, sources) -> cov.CoverageDB:
    db = cov.CoverageDB(sources)
    for s in sims:
        if s.get("cov"):
            db.add(points_of(s["cov"]))
    return db


def origin(kind) -> str:
    """Who wrote a simulation's stimulus: the random phase or the model."""
    return RANDOM if kind == RANDOM else "model"


def note_first(first: dict, pts, s: dict):
    """Record simulation `s` (its points `pts`) as the first to reach each covered point not in `first`."""
    for k in _covered(pts) - set(first):
        first[k] = (origin(s.get("kind")), s["sim"] + 1)


def first_reached(sims) -> dict:
    """point key -> (origin, sim number) of the first simulation that covered it."""
    first = {}
    for s in sims:
        if s.get("cov"):
            note_first(first, points_of(s["cov"]), s)
    return first
