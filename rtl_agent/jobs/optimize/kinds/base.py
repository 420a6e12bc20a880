"""What an action kind is (see kinds/__init__.py): three methods, each given the run's Toolkit (kinds/toolkit.py)."""
from __future__ import annotations

from training.loop import Group


class ActionKind:
    name = ""
    auto = True            # part of `--actions auto`
    choice = False         # answers are scored among listed options (one forward pass), not sampled: such a
                           # kind gets `choice_group` answers per parent, free-text kinds their share of G
    summary = ""

    def available(self, kit, code: str) -> bool:
        """Whether this kind has anything to offer on a design (checked on the reference when a run opens)."""
        return True

    def group(self, kit, state, sid, seed: int, n: int) -> Group:
        """The Group of n answers on the parent `state` (pool id `sid`), drawn with `seed`."""
        raise NotImplementedError

    def extract(self, kit, text: str, group, attempt):
        """The candidate in an answer: by default the whole module or the edit it holds (kit.extract_answer)."""
        return kit.extract_answer(text, group, attempt)
