from .base import ActionKind
from .decl import one_line_group


class Line(ActionKind):
    name = "line"
    summary = "one assignment's expression edited (its left-hand side prefilled)"

    def group(self, kit, state, sid, seed, n):
        return one_line_group(kit, state, sid, seed, n, self.name)
