from . import get
from .base import ActionKind


class Rewrite(ActionKind):
    name = "rewrite"
    summary = "the whole parent rewritten (its own header prefilled; the model writes the body)"

    def group(self, kit, state, sid, seed, n):
        p = state.payload
        if not p.get("code"):
            return get("spec").group(kit, state, sid, seed, n)
        view, msgs = kit.view(p, "full")
        if view.mode == "focus":            # a region is edited, never rewritten whole
            return get("diff").group(kit, state, sid, seed, n)
        pre = kit.prefill("full", parent=p["code"])
        return kit.edit_group(sid, n, "rewrite", "full", view, msgs, pre, kit.stop("full", pre))
