"""Choosing stimulus programs (eda.stim_programs) for the holes: the menu, its prompt, and the choosers.

A step's options are the library's (program, parameters) for the design's ports; a chooser picks n of them,
each runs from reset with its own seed (+opt=K +seed=S on one build), and its gain (points no earlier run
reached) is its score. Choosers:
  random   n distinct options, uniform (the baseline a choice is credited against)
  bandit   UCB1 over program kinds on the gain share they earned on this design (what paid is drawn more),
           a kind's least-drawn variant first
  policy   the chooser trained on verified outcomes (stim_chooser.py: the holes' features x the option's, with
           the per-design test-time update from this design's runs); `cover --chooser policy` uses it
  lm       the model scores each option's label after a prompt naming the holes (policy.choose, as optimize's
           transform kind): the label it finds most probable is drawn first (pick()'s "policy" is this scoring)
The model's free text stays one option among the programs with `--stimulus mixed` (one sample a step).
"""
from __future__ import annotations

import math
import random

from eda import stim_programs as sp

from .targets import holes

CHOOSERS = ("policy", "random", "bandit", "lm")
PREFILL = "Program: "
SYSTEM = ("You are a verification engineer closing code coverage. You choose the stimulus program whose "
          "traffic reaches the uncovered code.")


def prompt(top: str, ifc, db, types, labels, limit: int = 6) -> list:
    """Chat messages: the interfaces, a few holes (their source lines and conditions), the menu of labels."""
    hs = holes(db, types, limit) if db is not None and db.points else []
    shown = "\n".join(f"- {h}" for h in hs) or "- (none listed)"
    menu = "\n".join(f"- {lab}" for lab in labels)
    user = (f"Module `{top}`; interfaces: {ifc.describe()}.\nUncovered points:\n{shown}\n\n"
            "Each program below drives the inputs from reset (valid/ready patterns, frames, corner values, resets, "
            f"long runs). Choose the one most likely to reach the uncovered points:\n{menu}\n"
            f"Answer with the chosen line only, after `{PREFILL.strip()}`.")
    return [{"role": "system", "content": SYSTEM}, {"role": "user", "content": user}]


class KindBandit:
    """UCB1 over program kinds on the reward (share of the remaining gap) their options earned here."""

    def __init__(self, kinds, c: float = 0.5):
        self.kinds, self.c = tuple(dict.fromkeys(kinds)), c
        self.n = {k: 0 for k in self.kinds}
        self.sum = {k: 0.0 for k in self.kinds}

    def update(self, kind: str, reward: float):
        if kind in self.n:
            self.n[kind] += 1
            self.sum[kind] += float(reward)

    def ranked(self, rng: random.Random) -> list:
        untried = [k for k in self.kinds if not self.n[k]]
        rng.shuffle(untried)
        total = max(2, sum(self.n.values()))
        tried = sorted((k for k in self.kinds if self.n[k]),
                       key=lambda k: -(self.sum[k] / self.n[k] + self.c * math.sqrt(2 * math.log(total) / self.n[k])))
        return untried + tried


def pick(chooser: str, opts: list, n: int, seed: int, drawn: dict | None = None, bandit: KindBandit | None = None,
         policy=None, msgs=None, temperature: float = 1.0) -> list:
    """Indices of n distinct options (fewer when fewer exist). drawn: option index -> times run so far."""
    n, rng, drawn = min(n, len(opts)), random.Random(seed), drawn or {}
    if chooser == "random":
        return rng.sample(range(len(opts)), n)
    if chooser == "bandit":
        out = []
        while len(out) < n:
            for kind in (bandit or KindBandit([o.program for o in opts])).ranked(rng):
                left = [i for i, o in enumerate(opts) if o.program == kind and i not in out]
                if left:
                    least = min(drawn.get(i, 0) for i in left)
                    out.append(rng.choice([i for i in left if drawn.get(i, 0) == least]))
                    break
        return out
    if chooser in ("policy", "lm"):
        labels = [o.label for o in opts]
        comps = policy.choose(msgs, labels, n, temperature=temperature, seed=seed, prefill=PREFILL, stop="\n",
                              distinct=True)
        return [index_of(c.text, labels) for c in comps]
    raise ValueError(f"chooser must be one of {', '.join(CHOOSERS)}, got {chooser!r}")


def index_of(answer: str, labels) -> int | None:
    """The option an answer names (after the prefill), or None."""
    a = (answer or "").removeprefix(PREFILL).strip()
    return labels.index(a) if a in labels else None


def menu(task) -> tuple:
    """(interfaces, options) of a task's ports."""
    src = "\n".join(t for t in task.reference_sources().values() if isinstance(t, str))
    ifc = sp.recognise(task.ports, task.clock, task.reset, task.reset_active_low, src)
    return ifc, sp.options(ifc)


class ProgramPhase:
    """The cover job's program steps: the menu for the design, one choice group per step, one Verilator build
    for every option (made at the first program simulation), the bandit rebuilt from the simulation records."""

    def __init__(self, task, sources: dict, cfg, fsms, limits):
        self.task, self.sources, self.cfg, self.fsms, self.limits = task, sources, cfg, fsms, limits
        self.ifc, self.opts = menu(task)
        self.labels = [o.label for o in self.opts]
        self._built, self._chooser = None, None
        self.inputs = {p.name for p in task.ports if p.direction == "input"}
        self.text = sp.testbench(self.ifc, task.ports, task.top, self.opts, task.period_ns) if self.opts else ""

    def group(self, db, types, sims, n: int, seed: int):
        from training.loop import Group
        msgs = prompt(self.task.top, self.ifc, db, types, self.labels, self.cfg.prompt_points)
        info = {"kind": "program", "chooser": self.cfg.chooser, "options": len(self.opts)}
        if self.cfg.chooser == "policy":
            return self._learned(db, types, sims, n, msgs, info)
        if self.cfg.chooser == "lm":
            return Group(msgs, min(n, len(self.opts)), prefill=PREFILL, stop="\n", choices=tuple(self.labels),
                         chooser="policy", info=info)
        drawn, bandit = {}, KindBandit([o.program for o in self.opts])
        for s in sims:
            if s.get("kind") == "program" and s.get("option") in self.labels:
                i = self.labels.index(s["option"])
                drawn[i] = drawn.get(i, 0) + 1
                bandit.update(self.opts[i].program, s.get("reward", 0.0))
        idx = pick(self.cfg.chooser, self.opts, n, seed, drawn, bandit)
        return Group(msgs, len(idx), prefill=PREFILL, stop="\n", choices=tuple(self.labels[i] for i in idx),
                     chooser="exhaustive", info=info)

    def _learned(self, db, types, sims, n, msgs, info):
        """The trained chooser's top n for these holes, with the design's bias from its earlier program runs
        (grouped by the step they ran in, each with the score it was chosen with)."""
        from training.loop import Group
        from .stim_chooser import Bias, StimChooser, hole_vec
        if self._chooser is None:
            self._chooser = StimChooser.load()
        drawn, steps = {}, {}
        for s in sims:
            if s.get("kind") == "program" and s.get("option") in self.labels:
                i = self.labels.index(s["option"])
                drawn[i] = drawn.get(i, 0) + 1
                if s.get("pred") is not None:
                    steps.setdefault(s.get("batch"), []).append((self.opts[i].program, s["pred"], s.get("gain", 0)))
        bias = Bias()
        for step in steps.values():
            bias.update(step)
        hv = hole_vec(db, types, self.ifc, self.inputs)
        idx = self._chooser.pick(self.opts, hv, n, drawn, bias)
        info = {**info, "pred": {self.labels[i]: round(self._chooser.score(self.opts[i], hv, drawn.get(i, 0)), 4)
                                 for i in idx}}
        return Group(msgs, len(idx), prefill=PREFILL, stop="\n", choices=tuple(self.labels[i] for i in idx),
                     chooser="exhaustive", info=info)

    def run(self, k: int, seed: int):
        if self._built is None:
            self._built = sp.Built(self.sources, self.task.top, self.text, self.limits, self.fsms, self.task.clock)
        return self._built.run(k, seed)

    def close(self):
        if self._built is not None:
            self._built.close()
            self._built, self._chooser = None, None
        self.inputs = {p.name for p in task.ports if p.direction == "input"}
