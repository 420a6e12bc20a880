"""A stimulus-program chooser trained on verified outcomes (issue #60 items 2-3): which program and parameters
to run next, from what the holes need.

Features of a choice are the holes' features crossed with the option's: a hole (an uncovered line, branch or
toggle) says which inputs its enclosing conditions test (inputs the RTL compares with literals, valid/ready,
last/keep, reset, full/empty/count names, a counter compared with a large bound, an input's or an internal
signal's toggle, a high bit); the step's hole vector is their mean. An option is its program and parameters
(valid/ready patterns, data style, timeout, reset pulse, length) and how often it already ran on this design.
A ridge regression over the crossed features predicts log(1 + points an option reaches first), centred per
state (only the ranking within a step matters). Trained by bench/cover_choice.py on corpus modules of a
training split; weights in rtl_agent/adapters/stim_chooser/weights.json.

Test-time update (TTT): after each step the design's residuals (observed minus predicted, relative to the step's
other picks) are added to a per-program bias, shrunk by its count, so what pays on this design is drawn more;
a step that reached nothing demotes the programs it ran, so the next step tries others.

    ch = StimChooser.load()
    idx = ch.pick(opts, hole_vec(db, types, ifc), n, drawn, bias)      # option indices, best first
"""
from __future__ import annotations

import json
import math
import re
from pathlib import Path

from .targets import conditions

WEIGHTS = Path(__file__).resolve().parents[2] / "adapters" / "stim_chooser" / "weights.json"
PROGRAMS = ("handshake", "frames", "axil", "fill_drain", "reset_mid", "corners", "dictionary", "long_run")
HOLE = ("dict", "literal", "handshake", "last", "reset", "level", "counter", "toggle_in", "toggle_int", "high_bit",
        "branch", "line", "many")
_NUM = r"(\d+\s*'\s*[sS]?[bBhHdDoO]\s*[0-9a-fA-F_]+|\d+)"
_LIT = re.compile(r"[!=<>]=?\s*" + _NUM)                   # compared with a literal
_LABEL = re.compile(r"(?:^|\s)" + _NUM + r"\s*[,:](?!=)")     # a case arm's label


def _lit_value(t: str) -> int:
    from eda.stim_programs.constants import literal
    try:
        return literal(t) or 0
    except ValueError:
        return 0


def hole_items(db, types) -> list:
    """The uncovered points as (type, comment, context): a toggle's signal, or a line's or branch's source line
    with the if/case headers around it."""
    out, cache = [], {}
    for p in (db.uncovered(types) if db is not None else []):
        if p.type == "toggle":
            out.append((p.type, p.comment or "", re.sub(r"\[\d+\].*|:.*", "", p.comment or "") or (p.comment or "")))
            continue
        lines = cache.setdefault(p.file, db.sources.get(p.file, "").splitlines())
        out.append((p.type, p.comment or "", " ".join([p.source or ""] + conditions(lines, p.line))))
    return out


def hole_flags(item, compared: set, inputs: set) -> list:
    """One hole's 0/1 features (HOLE order, without `many`); compared: inputs the RTL compares with literals."""
    typ, comment, ctx = item
    bit = re.search(r"\[(\d+)\]", comment) if typ == "toggle" else None
    low = ctx.lower()
    words = set(re.findall(r"[A-Za-z_]\w*", ctx))
    lits = [_lit_value(m) for m in _LIT.findall(ctx) + _LABEL.findall(ctx)] if typ != "toggle" else []
    return [float(bool(words & compared)),
            float(bool(lits)),
            float("valid" in low or "ready" in low),
            float("last" in low or "keep" in low or "strb" in low),
            float("rst" in low or "reset" in low),
            float(any(w in low for w in ("full", "empty", "count", "ptr", "level"))),
            float(any(v >= 16 for v in lits) or bool(re.search(r"[<>]=?\s*[A-Z_]{3,}", ctx))),
            float(typ == "toggle" and ctx in inputs),
            float(typ == "toggle" and ctx not in inputs),
            float(bit is not None and int(bit.group(1)) >= 16),
            float(typ == "branch"),
            float(typ == "line")]


def items_vec(items: list, compared, inputs) -> list:
    """The step's hole features: the mean of its holes' flags, and log(1 + holes)/8 as `many`."""
    if not items:
        return [0.0] * len(HOLE)
    compared, inputs = set(compared), set(inputs)
    acc = [0.0] * (len(HOLE) - 1)
    for it in items:
        for i, v in enumerate(hole_flags(it, compared, inputs)):
            acc[i] += v
    return [a / len(items) for a in acc] + [math.log1p(len(items)) / 8]


def hole_vec(db, types, ifc, inputs=()) -> list:
    return items_vec(hole_items(db, types), ifc.dictionary, inputs)


def option_vec(opt, drawn: int = 0) -> list:
    """An option's features: program one-hot, its parameters, log(1 + times it ran here)."""
    q = opt.params
    return [float(opt.program == k) for k in PROGRAMS] + [
        math.log2(max(q.cycles, 1)) / 11, float(q.valid in ("p50", "p10", "burst")), float(q.valid == "p10"),
        float(q.ready in ("p50", "p10", "burst")), float(q.hold_ready > 0), float(q.frame > 0), float(q.gap > 0),
        float(q.keep == "random"), float(q.data == "dict"), float(q.data in ("zeros", "ones", "walking", "alt")),
        float(q.addr == "small"), float(q.phases), float(q.reset_at >= 0), float(q.others == "fresh"),
        float(q.timeout > 0), math.log1p(drawn)]


def features(hv: list, ov: list) -> list:
    """Option features alone and crossed with every hole feature (hole features alone drop out: centred)."""
    return ov + [h * o for h in hv for o in ov]


def fit(states: list, lam: float = 1.0) -> list:
    """Ridge weights from states [(hole_vec, [(option_vec, gain)])], target log1p(gain) centred per state."""
    import numpy as np
    X, y = [], []
    for hv, rows in states:
        if len(rows) < 2:
            continue
        f = np.array([features(hv, ov) for ov, _ in rows])
        t = np.log1p(np.array([g for _, g in rows], dtype=float))
        X.append(f - f.mean(0))
        y.append(t - t.mean())
    X, y = np.vstack(X), np.concatenate(y)
    w = np.linalg.solve(X.T @ X + lam * len(y) / 100 * np.eye(X.shape[1]), X.T @ y)
    return [float(v) for v in w]


class StimChooser:
    def __init__(self, w: list, meta: dict | None = None, shrink: float = 1.0):
        self.w, self.meta, self.shrink = list(w), dict(meta or {}), shrink

    @staticmethod
    def load(path: Path | None = None) -> "StimChooser":
        path = Path(path or WEIGHTS)
        try:
            d = json.loads(path.read_text())
        except (OSError, ValueError) as e:
            raise FileNotFoundError(f"stimulus chooser weights not readable at {path}: {e} "
                                    "(train them with bench/cover_choice.py fit)") from None
        return StimChooser(d["w"], d.get("meta"), d.get("shrink", 1.0))

    def save(self, path: Path | None = None):
        path = Path(path or WEIGHTS)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps({"w": self.w, "shrink": self.shrink, "meta": self.meta}, indent=1) + "\n")

    def score(self, opt, hv: list, drawn: int = 0) -> float:
        return sum(a * b for a, b in zip(self.w, features(hv, option_vec(opt, drawn))))

    def pick(self, opts: list, hv: list, n: int, drawn: dict | None = None, bias: "Bias | None" = None) -> list:
        """n distinct option indices, highest score (plus the design's bias) first; ties by index."""
        drawn = drawn or {}
        s = [(self.score(o, hv, drawn.get(i, 0)) + (bias.of(o.program) if bias else 0.0), -i)
             for i, o in enumerate(opts)]
        return [-j for _, j in sorted(s, reverse=True)[:min(n, len(opts))]]


class Bias:
    """The test-time update: per program, the mean residual of its runs on this design, shrunk by count + 1."""

    def __init__(self):
        self.sum, self.n = {}, {}

    def of(self, program: str) -> float:
        return self.sum.get(program, 0.0) / (self.n.get(program, 0) + 1)

    def update(self, step: list, idle: float = 0.5):
        """step: [(program, predicted, gain)] of one step's runs; residuals relative to the step's mean. A step
        that reached nothing demotes each program it ran by `idle` (so the next step tries others)."""
        if step and all(g <= 0 for _, _, g in step):
            for prog, _, _ in step:
                self.sum[prog] = self.sum.get(prog, 0.0) - idle
                self.n[prog] = self.n.get(prog, 0) + 1
            return
        if len(step) < 2:
            return
        obs = [math.log1p(max(g, 0)) for _, _, g in step]
        pred = [p for _, p, _ in step]
        mo, mp = sum(obs) / len(obs), sum(pred) / len(pred)
        for (prog, p, _), o in zip(step, obs):
            self.sum[prog] = self.sum.get(prog, 0.0) + (o - mo) - (p - mp)
            self.n[prog] = self.n.get(prog, 0) + 1
