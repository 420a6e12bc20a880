"""A chooser trained on verified outcomes: how likely an option is to prove out, from what its text and its
synthesis-only estimate say, times the gain the estimate promises.

The estimate alone (`--chooser estimate`) is greedy toward what the flow refutes: dropping the hold of a valid
or data register shrinks the netlist most and fails simulation first (bench/results/choice_replay.md). What
proves out is visible in the option's words (its kind, the signal's name: `tdest`, `tid` and `temp_` registers
prove, `valid`/`data`/`last` ones fail) and learnable from outcomes. The model is a logistic regression over
hashed words of the label, the kind and the estimate's size, fitted on the training split of the choice
benchmark only (bench/choice_train.py); it ranks by P(proven and above noise) x log(estimated gain).

    m = Ranker.load()                                 # the shipped weights (rtl_agent/adapters/chooser/weights.json)
    m.order(labels, kinds, estimates)                 # indexes, most promising first
"""
from __future__ import annotations

import json
import math
import re
import zlib
from pathlib import Path

import numpy as np

BUCKETS = 512
WEIGHTS = Path(__file__).resolve().parents[2] / "adapters" / "chooser" / "weights.json"
_WORD = re.compile(r"[a-z]+|\d+")


def features(label: str, kind: str, estimate: float | None) -> np.ndarray:
    x = np.zeros(BUCKETS + 4)
    words = [w for w in _WORD.findall(label.lower()) if not w.isdigit()]
    for w in set(words + [f"kind={kind}"] + [f"{kind}:{w}" for w in words]):
        x[zlib.crc32(w.encode()) % BUCKETS] = 1.0
    gain = math.log(estimate) if estimate else 0.0
    x[BUCKETS:] = (1.0, estimate is None, max(gain, 0.0), min(gain, 0.0))
    return x


class Ranker:
    def __init__(self, w: np.ndarray | None = None):
        self.w = np.zeros(BUCKETS + 4) if w is None else np.asarray(w, dtype=float)

    def p(self, label: str, kind: str, estimate: float | None) -> float:
        return 1.0 / (1.0 + math.exp(-float(features(label, kind, estimate) @ self.w)))

    def order(self, labels, kinds, estimates) -> list[int]:
        """Most promising first: P(counts) x the estimated log gain (a small floor, so an option without an
        estimate or with none promised still ranks by its chance)."""
        score = [self.p(lab, k, e) * max(math.log(e) if e else 0.0, 0.01)
                 for lab, k, e in zip(labels, kinds, estimates)]
        return sorted(range(len(score)), key=lambda i: -score[i])

    @classmethod
    def fit(cls, rows: list, l2: float = 1.0, steps: int = 400, lr: float = 0.5) -> "Ranker":
        """rows: (label, kind, estimate, counted: bool). Full-batch gradient descent on the L2-regularised
        logistic loss: a few hundred options train in well under a second, deterministically."""
        X = np.array([features(lab, k, e) for lab, k, e, _ in rows])
        y = np.array([float(c) for *_, c in rows])
        w = np.zeros(X.shape[1])
        for _ in range(steps):
            p = 1.0 / (1.0 + np.exp(-(X @ w)))
            w -= lr * (X.T @ (p - y) / len(y) + l2 * w / len(y))
        return cls(w)

    def save(self, path: Path = WEIGHTS, meta: dict | None = None):
        path.write_text(json.dumps({"buckets": BUCKETS, "w": [round(v, 6) for v in self.w], **(meta or {})}) + "\n")

    @classmethod
    def load(cls, path: Path = WEIGHTS) -> "Ranker":
        try:
            d = json.loads(Path(path).read_text())
        except (OSError, ValueError) as e:
            raise FileNotFoundError(f"chooser weights not readable at {path}: {e} (train them with "
                                    "bench/choice_train.py)") from e
        if d.get("buckets") != BUCKETS:
            raise ValueError(f"{path}: weights for {d.get('buckets')} buckets, this code uses {BUCKETS}")
        return cls(d["w"])
