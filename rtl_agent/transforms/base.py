"""What a transformation kind is: it lists its sites in a design and rewrites one.

    class Kind(Transform):
        name = "cond_arith"
        summary = "a conditional increment becomes arithmetic"
        def options(self, d: Design) -> list[Option]: ...       # one per (site, parameters)
        def apply(self, d: Design, o: Option) -> str: ...        # the rewritten design's text

A transformation is never trusted: its output is a candidate like any model-written one, evaluated by the same
flow, and counts only when proven equivalent to the reference. So a kind may propose freely (a screen that
drops options a random simulation already refutes saves evaluations, nothing more).
"""
from __future__ import annotations

import json
from dataclasses import dataclass, field

from eda.pdk import DEFAULT_PDK

from .syntax import Parsed, parse


class TransformError(ValueError):
    """The option does not apply to this design (a stale site, an unsupported construct)."""


@dataclass
class Design:
    """A design as the kinds see it: its text, its top, and what the run knows of it."""
    code: str
    top: str
    ranges: dict = field(default_factory=dict)     # {register: eda.ranges.Range} from the reference's testbench
    pdk: str = DEFAULT_PDK

    def parsed(self) -> Parsed:
        """The parse tree (raises syntax.ParseError: the caller logs it and falls back)."""
        return parse(self.code, self.top)


@dataclass
class Option:
    kind: str
    site: str                  # where: a signal, a statement's line, an always block
    params: dict               # JSON values: what the kind needs to rebuild the edit
    label: str                 # one line for the policy's menu, unique among a parent's options

    def key(self) -> str:
        return f"{self.kind}|{self.site}|{json.dumps(self.params, sort_keys=True)}"

    def to_dict(self) -> dict:
        return {"kind": self.kind, "site": self.site, "params": self.params, "label": self.label}

    @classmethod
    def from_dict(cls, d: dict) -> "Option":
        return cls(d["kind"], d["site"], dict(d.get("params") or {}), d["label"])


class Transform:
    name = ""
    summary = ""

    def options(self, d: Design) -> list[Option]:
        raise NotImplementedError

    def apply(self, d: Design, o: Option) -> str:
        raise NotImplementedError

    def option(self, site: str, label: str, **params) -> Option:
        return Option(self.name, site, params, label)
