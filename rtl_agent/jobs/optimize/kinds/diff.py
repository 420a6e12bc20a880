from . import get
from .base import ActionKind


class Diff(ActionKind):
    name = "diff"
    summary = "free SEARCH/REPLACE blocks against the parent, several lines and blocks allowed"

    def group(self, kit, state, sid, seed, n):
        p = state.payload
        if not p.get("code"):
            return get("spec").group(kit, state, sid, seed, n)
        view, msgs = kit.view(p, "diff")
        pre = kit.prefill("diff", parent=p["code"])
        return kit.edit_group(sid, n, "diff", "diff", view, msgs, pre, kit.stop("diff", pre))
