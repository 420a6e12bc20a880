from .base import ActionKind
from .decl import one_line_group


class Line(ActionKind):
    name, order = "line", 60
    summary = "one assignment's expression edited (its left-hand side prefilled)"

    def group(self, env, state, sid, seed, n):
        return one_line_group(env, state, sid, seed, n, self.name)
