"""What a cheap program knows of an option before the full flow: its design synthesized and timed alone.

The full flow (simulation, equivalence proof, noise floor, the other PDK, place and route) is what makes a find
count; it costs tens of seconds to minutes a candidate on a team's module. Synthesis and STA alone cost a few
seconds and give the PPA the flow would report if the option proves equivalent, so ranking a parent's options
by it (`--chooser estimate`) spends the flow's evaluations on the options likely to pay first. The estimate is a
hint, never a verdict: the chosen design still goes through the whole flow.

    est = Estimator(job, top)
    est.ratios(parent_code, [(option, child_code_or_None), ...])   # [ratio or None], parent PPA / child PPA
"""
from __future__ import annotations

from eda.flow import evaluate

STAGES = ("synth", "sta")


class Estimator:
    def __init__(self, job, top: str):
        self.job, self.top = job.replace(stages=STAGES), top
        self._ppa: dict = {}           # design text -> its synthesized PPA (None: it did not synthesize or time)

    def ppa(self, code: str) -> float | None:
        if code not in self._ppa:
            rep = evaluate(self.job, {f"{self.top}.v": code})
            self._ppa[code] = rep.ppa if rep.status == "pass" and rep.ppa else None
        return self._ppa[code]

    def ratios(self, parent: str, children: list) -> list:
        """The parent's estimated PPA over each child's (above 1: the child looks better); None where a child
        has no code (the option did not apply) or either side gave no estimate."""
        base = self.ppa(parent)
        out = []
        for code in children:
            child = self.ppa(code) if code else None
            out.append(base / child if base and child else None)
        return out


def order(ratios: list) -> list[int]:
    """Indexes best estimate first; options without an estimate last, in their menu order (stable)."""
    return sorted(range(len(ratios)), key=lambda i: (ratios[i] is None, -(ratios[i] or 0.0)))
