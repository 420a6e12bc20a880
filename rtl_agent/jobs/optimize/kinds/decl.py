import random
import re

from eda.hdl import IDENT
from rtl_agent import edits, focus, prompts

from . import get
from ..actions import decl_ban, decl_targets
from .base import ActionKind


class Decl(ActionKind):
    name = "decl"
    summary = ("one declaration of the parent edited (a width, a state code, a parameter): its line is the "
               "prefilled SEARCH part, its replacement prefilled up to the width bracket or the `=`")

    def group(self, kit, state, sid, seed, n):
        return one_line_group(kit, state, sid, seed, n, self.name)


def one_line_group(kit, state, sid, seed, n, kind):
    """A decl edit (a declaration line; registers with headroom two times in three), or a line edit (one
    assignment, critical-path names first); with nothing to target, a free diff."""
    p = state.payload
    if not p.get("code"):
        return get("spec").group(kit, state, sid, seed, n)
    view, msgs = kit.view(p, "diff")
    pre = kit.prefill("diff", parent=p["code"])
    stop, target, one_line, ban = kit.stop("diff", pre), None, False, ()
    if pre:
        lines, region = p["code"].splitlines(), view.region
        cand = [i for i in decl_targets(p["code"]) if not region or region[0] <= i + 1 <= region[1]] \
            if kind == "decl" else []
        if not cand:
            kind = "line"
            cand = edits.targets(p["code"], focus.path_names(p.get("report")), region)[:8]
        rng, slack = random.Random(seed), set(kit.slack(p["code"])) if kind == "decl" else set()
        wide = [i for i in cand if slack & set(re.findall(IDENT, lines[i]))]
        if wide and rng.random() < 2 / 3:       # mostly a register the testbench leaves headroom in
            cand = wide
        if cand:
            target = rng.choice(cand)
            one_line = kind == "decl" or kit.cfg.line_edit
            pre += (decl_prefill(lines[target]) if kind == "decl" else
                    prompts.target_prefill(lines[target], kit.cfg.line_edit, kit.cfg.keep_lhs))
            stop = "\n" if one_line else ">>>>>>> REPLACE"
            ban = decl_ban(lines[target]) if kind == "decl" else ()
        else:
            kind = "diff"
    return kit.edit_group(sid, n, kind, "diff", view, msgs, pre, stop, target=target, one_line=one_line, ban=ban)


def decl_prefill(line: str) -> str:
    """A one-line declaration edit's prefill after the fence: its SEARCH line, and the replacement up to the
    width bracket or the `=` (decl and narrow)."""
    from ..actions import decl_head
    return line + "\n=======\n" + decl_head(line)
