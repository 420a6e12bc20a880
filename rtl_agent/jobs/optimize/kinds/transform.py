"""The policy chooses among verified transformations (rtl_agent.transforms) of the parent: the environment lists
the options, the policy scores each by its own probability of naming it (policy.choose; the LoRA update moves
those probabilities toward what earned reward), and the chosen program writes the design. A served model that
cannot score answers from the listed menu in free text. `--chooser random|exhaustive` replaces the policy by a
uniform draw or by every option once: the baselines a find is credited against."""
from __future__ import annotations

from rtl_agent import prompts
from rtl_agent import transforms as T
from training.rows import Candidate

from ..estimate import order
from . import get
from .base import ActionKind

MENU = 16          # options shown per parent (the library's order: kinds, then sites)


class Transform(ActionKind):
    name = "transform"
    choice = True
    summary = "the policy chooses one of the library's transformations of the parent (rtl_agent/transforms)"

    def available(self, kit, code):
        return bool(kit.transform_options(code))

    def group(self, kit, state, sid, seed, n):
        p, chooser = state.payload, kit.cfg.chooser
        # the estimate and learned choosers rank every option, not only the menu the policy's prompt can hold
        ranks = chooser in ("estimate", "learned", "lm")
        menu = None if ranks else MENU
        opts = kit.transform_options(p.get("code"), sid, menu) if p.get("code") else []
        while not opts and chooser != "policy" and state.parent is not None:
            # the baselines stay model-free: the nearest ancestor the library can still transform
            sid, state = state.parent, kit.state(state.parent)
            p = state.payload
            opts = kit.transform_options(p.get("code"), sid, menu) if p.get("code") else []
        if not opts:                   # nothing the library can do here: a free edit instead
            return get("diff").group(kit, state, sid, seed, n)
        estimates = None
        if ranks:                      # most promising first; the group takes the first n, as exhaustive takes all
            ratios = kit.estimated(p["code"], opts)
            ranked = order(ratios) if chooser == "estimate" else \
                kit.ranker(chooser).order([o.label for o in opts], [o.kind for o in opts], ratios)
            opts, estimates = [opts[i] for i in ranked], [ratios[i] for i in ranked]
        view, _ = kit.view(p, "diff")
        labels = tuple(o.label for o in opts)
        msgs = prompts.transform_prompt(kit.spec, view, p.get("report"), kit.top, labels)
        pre = prompts.TRANSFORM_PREFILL if kit.prefill("diff") or kit.cfg.chooser != "policy" else ""
        if chooser == "exhaustive":
            n = len(opts)
        g = kit.edit_group(sid, min(n, len(opts)) if ranks else n, "transform", "transform", view, msgs, pre,
                           "\n", choices=labels)
        g.info["options"] = [o.to_dict() for o in opts]
        g.info["chooser"] = chooser
        g.chooser = "exhaustive" if ranks else chooser    # the loop draws the first n of the ranked menu
        if ranks:
            g.info["estimates"] = [None if r is None else round(r, 4) for r in estimates]
        return g

    def extract(self, kit, text, group, attempt):
        info = group.info or {}
        opts = [T.Option.from_dict(d) for d in info.get("options") or ()]
        answer = text[len(group.prefill):] if group.prefill and text.startswith(group.prefill) else text
        opt = pick(answer, opts)
        out = {"code": None, "action": "transform", "applied": False, "how": [], "error": "", "repaired": 0,
               "duplicate": False, "transform": opt.to_dict() if opt else None}
        parent = kit.parent_code(group)
        if opt is None:
            out["error"] = "the answer names none of the listed transformations"
            return Candidate(out)
        try:
            out["code"] = T.apply(kit.design(parent), opt)
            out["applied"], out["how"] = True, [opt.kind]
        except Exception as e:     # noqa: BLE001 - a transformation is untrusted code: its failure is an apply failure
            out["error"] = f"{opt.kind}: {type(e).__name__}: {e}"[:300]
        if out["code"] is not None and kit.same(out["code"], parent):
            out["duplicate"] = True
        return Candidate(out)


def pick(answer: str, opts: list):
    """The option an answer names: the longest label it contains, else a leading 1-based number."""
    hits = [o for o in opts if o.label in answer]
    if hits:
        return max(hits, key=lambda o: len(o.label))
    head = answer.strip().split(".")[0].split(")")[0].strip()
    return opts[int(head) - 1] if head.isdigit() and 0 < int(head) <= len(opts) else None
