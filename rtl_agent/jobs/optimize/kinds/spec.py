from .base import ActionKind


class Spec(ActionKind):
    name = "spec"
    summary = "a fresh design from the specification alone (the task's header prefilled)"

    def group(self, kit, state, sid, seed, n):
        return kit.spec_group(sid, n)
