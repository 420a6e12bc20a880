from . import get
from .base import ActionKind


class Rewrite(ActionKind):
    name, order = "rewrite", 20
    summary = "the whole parent rewritten (its own header prefilled; the model writes the body)"

    def group(self, env, state, sid, seed, n):
        p = state.payload
        if not p.get("code"):
            return get("spec").group(env, state, sid, seed, n)
        view, msgs = env._view(p, "full")
        if view.mode == "focus":            # a region is edited, never rewritten whole
            return get("diff").group(env, state, sid, seed, n)
        pre = env._prefill("full", parent=p["code"])
        return env._edit_group(sid, n, "rewrite", "full", view, msgs, pre, env._stop("full", pre))
