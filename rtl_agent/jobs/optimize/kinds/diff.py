from . import get
from .base import ActionKind


class Diff(ActionKind):
    name, order = "diff", 30
    summary = "free SEARCH/REPLACE blocks against the parent, several lines and blocks allowed"

    def group(self, env, state, sid, seed, n):
        p = state.payload
        if not p.get("code"):
            return get("spec").group(env, state, sid, seed, n)
        view, msgs = env._view(p, "diff")
        pre = env._prefill("diff", parent=p["code"])
        return env._edit_group(sid, n, "diff", "diff", view, msgs, pre, env._stop("diff", pre))
