"""When an optimize run has nothing left to try, it ends before its step budget and says why.

Checked before each step k > 1 (training.loop: Environment.stop_reason), from the pool and the run store alone, so
a resumed run that had stopped stops again with the same reason. The run stops when both hold after step k-1:
  1. no untried library option: every design the pool can hand out as a parent (the root alone with --no-pool)
     has been a parent, and every transformation the library lists on it has been drawn on it (a design whose
     options fill the menu a prompt shows counts as having more);
  2. free text found nothing: step k-1 sampled free-text answers (the model's own edits and rewrites, the
     transform kind's fallback edit included) and none of them was verified.
Left alone: a run without the `transform` kind, or with another choice kind (narrow), whose options are not the
library's. Anything untried keeps the run going; more steps would only re-draw what is known.
"""
from __future__ import annotations

from .kinds import get
from .kinds.transform import MENU


def reason(env, step: int, store) -> str | None:
    """Why step `step` should not run (see the module's docstring), or None."""
    if step <= 1 or "transform" not in env.kinds or any(get(k).choice for k in env.kinds if k != "transform"):
        return None
    free = [c for c in store.candidates(step - 1) if _kind(c) != "transform"]
    if not free or any(c["failed"] is None for c in free):
        return None
    drawn = {}
    for c in store.candidates():
        if c["parent"] is not None:
            label = ((c["payload"].get("candidate") or {}).get("transform") or {}).get("label")
            drawn.setdefault(c["parent"], set()).update([label] if label else [])
    pool = env.pool_
    sids = list(pool.states) if env.cfg.pool else [pool.root]
    if any(sid not in drawn for sid in sids):
        return None                                    # a design never tried as a parent
    for sid in sids:
        code = pool[sid].payload.get("code")
        opts = env.kit.transform_options(code) if code else []
        # a full menu may hide more options behind it: untried, as far as this rule can tell
        if len(opts) >= MENU or any(o.label not in drawn[sid] for o in opts):
            return None
    return (f"no untried option left (every transformation the library lists on the pool's {len(sids)} "
            f"design{'s' if len(sids) > 1 else ''} was drawn) and the {len(free)} free-text "
            f"answer{'s' if len(free) > 1 else ''} of step {step - 1} all failed")


def _kind(c: dict) -> str | None:
    return (c["payload"].get("candidate") or {}).get("kind") or (c["sample"] or {}).get("action_kind")
