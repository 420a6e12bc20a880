"""Helpers of the optimize action kinds (jobs/optimize/kinds/, one class per kind, one registry) and the
per-design bandit that mixes them.

Gains live in structure (arithmetic built from instances, registers wider than their values, duplicated
logic, decode chains, encodings), which one-line expression edits cannot reach: ABC normalises a rewritten
expression back to the same netlist (bench/results/one_line_headroom.md). So a step mixes kinds: `transform`
(the policy chooses one of the library's verified transformations), `spec`, `rewrite`, `diff`, `decl`, `line`
(free text), and `narrow` by name.

Each parent's G samples are split among `kinds_per_parent` kinds chosen by a UCB bandit over the rewards
each kind has earned on this design (verified designs earn log(PPA_ref/PPA), failures their penalty); a
kind not tried yet goes first (`transform` before the others, then in an order set by the step's seed). The
bandit is part of the run's state, so a resumed run chooses as the uninterrupted one would. Every candidate,
pool entry and find records its kind and chain (candidates.csv, best.json).
"""
from __future__ import annotations

import math
import random
import re

from rtl_agent.transforms.narrow import widths as narrow_widths   # noqa: F401  (the one rule, shared)


# a declaration worth editing: an internal vector/variable (its width) or a parameter (its value)
_WIDTH_DECL = re.compile(r"^(\s*(?:reg|wire|logic)\b(?:\s+signed)?\s*\[)([^\]]*\][^;=()]*;\s*(?://.*)?)$")
_VALUE_DECL = re.compile(r"^(\s*(?:localparam|parameter)\b[^=;]*=\s*)([^;]*;?\s*(?://.*)?)$")
_PORT_WORD = re.compile(r"\b(?:input|output|inout)\b")
# an unsigned register vector [N:0] and its names (no initialiser, no array): what `narrow` may shrink
_NARROW = re.compile(r"^\s*(?:reg|logic)\s*\[\s*(\d+)\s*:\s*0\s*\]\s*([A-Za-z_]\w*(?:\s*,\s*[A-Za-z_]\w*)*)\s*;"
                     r"\s*(?://.*)?$")


def decl_targets(code: str) -> list[int]:
    """0-based lines holding one internal declaration with a width, or a parameter with a value."""
    return [i for i, line in enumerate(code.splitlines())
            if not _PORT_WORD.search(line) and (_WIDTH_DECL.match(line) or _VALUE_DECL.match(line))]


def decl_head(line: str) -> str:
    """The prefilled start of a declaration's replacement: up to its width bracket, or up to its `=`."""
    m = _WIDTH_DECL.match(line) or _VALUE_DECL.match(line)
    return m.group(1) if m else ""


def decl_ban(line: str) -> tuple:
    """What a declaration edit may not write again: the first number or name after its prefilled head
    (the old MSB, or the old value), which the small model otherwise copies (bench/results/find_rate.md:
    most decl answers repeated the width). Samplers that can ban tokens (hf, vllm) enforce it."""
    m = _WIDTH_DECL.match(line)
    if m:
        atom = re.match(r"\s*([A-Za-z_]\w*|\d+)", m.group(2))
        return (atom.group(1),) if atom else ()
    m = _VALUE_DECL.match(line)
    value = m.group(2).split(";")[0].strip() if m else ""
    return (value,) if value else ()


def narrow_target(line: str) -> tuple[int, list] | None:
    """(declared width, names) of a plain unsigned register declaration `reg [N:0] a, b;`, else None."""
    m = _NARROW.match(line)
    return (int(m.group(1)) + 1, [n.strip() for n in m.group(2).split(",")]) if m else None


def narrow_options(line: str, widths) -> list[str]:
    """The continuations of decl_head(line) that declare the same names `widths` bits wide."""
    rest = line[line.index("]") + 1:]
    return [f"{w - 1}:0]{rest}" for w in widths]


class Bandit:
    """UCB1 over action kinds, on the mean reward each kind earned on this design."""

    def __init__(self, kinds, c: float = 0.5, stats: dict | None = None, first=("transform",)):
        self.kinds, self.c, self.first = tuple(kinds), c, tuple(first)
        self.stats = {k: {"n": 0, "sum": 0.0, "valid": 0, "finds": 0} for k in self.kinds}
        for k, s in (stats or {}).items():
            if k in self.stats:
                self.stats[k].update(s)

    def choose(self, m: int, rng: random.Random) -> list[str]:
        """m distinct kinds (fewer when fewer exist): the pinned `first` kinds (the library's choices cost a
        forward pass and are proven programs: every parent gets them), then untried ones (seeded order), then
        by UCB."""
        pinned = [k for k in self.first if k in self.kinds][:max(1, m)]
        untried = [k for k in self.kinds if self.stats[k]["n"] == 0 and k not in pinned]
        rng.shuffle(untried)
        total = sum(s["n"] for s in self.stats.values()) or 1
        tried = sorted((k for k in self.kinds if self.stats[k]["n"] and k not in pinned),
                       key=lambda k: -self.score(k, total))
        return (pinned + untried + tried)[:max(1, m)]

    def score(self, k: str, total: int) -> float:
        s = self.stats[k]
        return s["sum"] / s["n"] + self.c * math.sqrt(2 * math.log(max(total, 2)) / s["n"])

    def update(self, kind: str, reward: float, valid: bool, find: bool):
        if kind not in self.stats:
            return
        s = self.stats[kind]
        s["n"] += 1
        s["sum"] += float(reward)
        s["valid"] += int(valid)
        s["finds"] += int(find)

    def to_dict(self) -> dict:
        return {k: dict(v) for k, v in self.stats.items()}


def split(g: int, m: int) -> list[int]:
    """G samples over m kinds as evenly as possible, never a kind with 0 samples (m capped at G)."""
    m = max(1, min(m, g))
    return [g // m + (1 if i < g % m else 0) for i in range(m)]
