"""The typed data between the loop and an environment: what extract() found, a request to sample
again, a scored row, and the context the loop hands to the environment's calls."""
from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable


@dataclass
class Candidate:
    """What extract() found in one completion. `value` goes to the environment's score() (None: the
    completion held nothing usable); the environment alone reads it."""
    value: object = None
    text: str | None = None     # what the row records when value is None (e.g. the bare completion)


@dataclass
class Retry:
    """extract() asks for one more sample for this completion (a re-prompt: e.g. an edit that did not
    apply, shown its error). The loop draws it seeded by (seed, step, group, sample, tag), so a resumed
    step draws the same, and calls extract() again with the new text."""
    prompt: list
    prefill: str = ""
    stop: str | None = None
    tag: str = "repair"


@dataclass
class Attempt:
    """Which answer extract() is reading: `retries` re-prompts so far; `prompt` the one it answered."""
    retries: int
    prompt: list


@dataclass
class Row:
    """One scored candidate, complete as the environment returns it. `metrics`: the environment's
    columns (Environment.metric_columns); `payload`: its JSON record; `sample`: how the loop drew it
    (completion, tokens, finish, seed, prefill, the group's info), filled by the loop."""
    text: str | None
    reward: float
    status: str
    failed: str | None = None          # why it is not valid (a stage name); None: valid
    metrics: dict = field(default_factory=dict)
    payload: dict = field(default_factory=dict)
    group: int | None = None
    parent: object = None
    sample: dict = field(default_factory=dict)

    @property
    def valid(self) -> bool:
        return self.failed is None

    def to_store(self) -> dict:
        return {"grp": self.group, "parent": self.parent, "text": self.text, "reward": self.reward,
                "status": self.status, "failed": self.failed, "metrics": self.metrics, "payload": self.payload,
                "sample": self.sample}

    @classmethod
    def from_store(cls, d: dict) -> "Row":
        return cls(text=d["text"], reward=d["reward"], status=d["status"], failed=d["failed"],
                   metrics=d.get("metrics") or {}, payload=d.get("payload") or {}, group=d["grp"],
                   parent=d["parent"], sample=d.get("sample") or {})


@dataclass
class Context:
    """What the loop hands to an environment's calls: where the run lives and how to report progress."""
    out: Path
    emit: Callable = field(default=lambda kind, **data: None)
