"""What an action kind is (see kinds/__init__.py)."""
from __future__ import annotations

from training.loop import Group


class ActionKind:
    name = ""
    order = 100            # menu order (KINDS, --help)
    auto = True            # part of `--actions auto`
    choice = False         # answers are scored among listed options (one forward pass), not sampled: such a
                           # kind gets `choice_group` answers per parent, free-text kinds their share of G
    summary = ""

    def available(self, env, code: str) -> bool:
        """Whether this kind has anything to offer on a design (checked on the reference when a run opens)."""
        return True

    def group(self, env, state, sid, seed: int, n: int) -> Group:
        raise NotImplementedError

    def extract(self, env, text: str, group, attempt):
        """The candidate in an answer: by default the whole module or the edit it holds (env.extract_answer)."""
        return env.extract_answer(text, group, attempt)
