import random

from ..actions import narrow_options
from .base import ActionKind
from .decl import decl_prefill, one_line_group


class Narrow(ActionKind):
    """Kept for `--actions narrow` and earlier runs; `transform` offers the same widths (transforms/narrow.py)
    among the library's other kinds, so `auto` leaves this one out."""
    name, auto = "narrow", False
    choice = True
    summary = ("a register the reference's testbench leaves headroom in gets a narrower width, chosen by the "
               "policy's own probabilities among the tight width, one spare bit and the next power of two")

    def available(self, kit, code):
        return bool(kit.narrow_lines(code))

    def group(self, kit, state, sid, seed, n):
        p = state.payload
        if not p.get("code"):
            return one_line_group(kit, state, sid, seed, n, "decl")
        view, msgs = kit.view(p, "diff")
        pre = kit.prefill("diff", parent=p["code"])
        wide = kit.narrow_lines(p["code"], view.region) if pre else {}
        if not wide:                    # this parent has no register left to narrow
            return one_line_group(kit, state, sid, seed, n, "decl")
        target = random.Random(seed).choice(sorted(wide))
        line = p["code"].splitlines()[target]
        return kit.edit_group(sid, n, "narrow", "diff", view, msgs, pre + decl_prefill(line), "\n", target=target,
                               one_line=True, choices=tuple(narrow_options(line, wide[target])))
