"""What a chooser can read about an option before the full flow, and a ranker that reads it (issue 57, bench only).

The product ranker (rtl_agent/jobs/optimize/ranker.py) reads the label's words (digits dropped), the kind and the
estimate. Whether an option pays in the version-2 generated designs depends on context it cannot see: a `narrow`
pays when the new width still holds every constant the register is compared with and every bit read of it, a `share` when its operands
are wide, an `idle` when few places read the register. `facts` reads those off the design text (a cheap program,
no flow); `FactsRanker` is the same logistic model with those facts added, fitted on the train split only.

    facts(code, site, params) -> {"width", "fanout", "cmp_bits", "sel_bits"}
    FactsRanker.fit(rows).order(records)      # rows: (record, counted); records: choice_gen.json option dicts
"""
from __future__ import annotations

import math
import re
import zlib

import numpy as np

from rtl_agent.jobs.optimize.ranker import BUCKETS, features as word_features

_ID = re.compile(r"[A-Za-z_]\w*")
_SKIP = {"line", "always", "assign", "offset", "mul", "add", "sub", "enable"}


def _signal(code: str, site: str) -> str | None:
    at = re.search(r"(line|offset) (\d+)", site)
    if at:      # a statement's site: the signal its line assigns
        line = int(at.group(2)) if at.group(1) == "line" else code[:int(at.group(2))].count("\n") + 1
        lines = code.splitlines()
        text = lines[line - 1] if 0 < line <= len(lines) else ""
        lhs = re.search(r"([A-Za-z_]\w*)\s*(?:\[[^\]]*\])?\s*<?=(?!=)", text)
        if lhs:
            return lhs.group(1)
    names = [n for n in _ID.findall(site) if n not in _SKIP and re.search(rf"\b{n}\b", code)]
    return names[0] if names else None


def facts(code: str, site: str, params: dict | None = None) -> dict:
    """The declared width of the signal the option names, its fan-out (reads: occurrences neither on an
    assignment's left side nor in its declaration), the bits of the largest constant it is compared with and the
    highest of its bits a select reads (+1)."""
    n = _signal(code, site or "")
    if n is None:
        return {"width": None, "fanout": None, "cmp_bits": None, "sel_bits": None}
    decl = re.search(rf"(?:reg|wire|input|output)\s*(?:reg\s*)?(?:\[(\d+):0\])?\s*(?:\w+\s*,\s*)*{n}\b", code)
    width = int(decl.group(1)) + 1 if decl and decl.group(1) else (1 if decl else None)
    uses = len(re.findall(rf"\b{n}\b", code))
    writes = len(re.findall(rf"\b{n}\s*(?:\[[^\]]*\])?\s*<?=(?!=)", code))
    consts = [int(k) for k in re.findall(rf"\b{n}\s*(?:==|!=|<=|>=|<|>)\s*\d+'d(\d+)", code)]
    sels = [int(k) + 1 for k in re.findall(rf"\b{n}\[(\d+)", code)]
    return {"width": width, "fanout": max(0, uses - writes - (1 if decl else 0)),
            "cmp_bits": max(consts).bit_length() if consts else None, "sel_bits": max(sels) if sels else None}


def _bucket(x, edges) -> str:
    if x is None:
        return "none"
    for e in edges:
        if x <= e:
            return f"le{e}"
    return f"gt{edges[-1]}"


def fact_words(rec: dict) -> list[str]:
    """The facts as words, alone and crossed with the kind (a wide `share` and a wide `idle` differ)."""
    k, p = rec["kind"], rec.get("params") or {}
    words = [f"w={_bucket(rec.get('width'), (4, 8, 12))}", f"fo={_bucket(rec.get('fanout'), (0, 1, 2, 4))}"]
    need = max(rec.get("cmp_bits") or 0, rec.get("sel_bits") or 0)
    if k == "narrow" and need and "width" in p:
        words.append(f"keeps_read_bits={int(p['width']) >= need}")
    if k == "idle":
        words.append(f"mode={p.get('mode')}")
    return words + [f"{k}:{w}" for w in words]


def features(rec: dict) -> np.ndarray:
    x = word_features(rec["label"], rec["kind"], rec["estimate"])
    for w in fact_words(rec):
        x[zlib.crc32(w.encode()) % BUCKETS] = 1.0
    return x


class FactsRanker:
    def __init__(self, w: np.ndarray):
        self.w = w

    def p(self, rec: dict) -> float:
        return 1.0 / (1.0 + math.exp(-float(features(rec) @ self.w)))

    def order(self, recs: list) -> list[int]:
        """Most promising first: P(counts) x the estimated log gain (a floor, as the product ranker)."""
        score = [self.p(r) * max(math.log(r["estimate"]) if r["estimate"] else 0.0, 0.01) for r in recs]
        return sorted(range(len(recs)), key=lambda i: -score[i])

    @classmethod
    def fit(cls, rows: list, l2: float = 1.0, steps: int = 400, lr: float = 0.5) -> "FactsRanker":
        """rows: (option record, counted). The product ranker's loss and optimiser, more features."""
        X = np.array([features(r) for r, _ in rows])
        y = np.array([float(c) for _, c in rows])
        w = np.zeros(X.shape[1])
        for _ in range(steps):
            p = 1.0 / (1.0 + np.exp(-(X @ w)))
            w -= lr * (X.T @ (p - y) / len(y) + l2 * w / len(y))
        return cls(w)
