from .base import ActionKind


class Spec(ActionKind):
    name, order = "spec", 10
    summary = "a fresh design from the specification alone (the task's header prefilled)"

    def group(self, env, state, sid, seed, n):
        return env._spec_group(sid, n)
