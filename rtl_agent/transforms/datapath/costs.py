"""Per-PDK operator costs for extraction: area (um2) and delay (ns) of each operator at each width, fitted
by synthesizing small single-operator modules with the project's flow (`rtl-agent fit-costs` writes
costs_table.json beside this file; how it was made is recorded in the file itself).

    m = Model.for_pdk("nangate45", mode="area")     # or mode="delay"
    eg.extract(root, cost_model=m)                   # egglog cost model: (primary, secondary, width)
    m.term_cost(terms)                               # (area, delay) of ir terms, shared nodes counted once
"""
from __future__ import annotations

import json
from functools import lru_cache
from pathlib import Path

from egglog.deconstruct import get_callable_args, get_callable_fn, get_literal_value

from .ir import kids, nodes
from .egraph import OP_OF

TABLE = Path(__file__).with_name("costs_table.json")
FREE = ("var", "const", "concat", "slice", "zext", "sext")
# an operator whose cost follows its operands' width rather than its result's
BY_OPERAND = ("eq", "lt", "slt", "redor", "redand", "redxor")


@lru_cache(maxsize=4)
def table(pdk: str) -> dict:
    """{op: {width: [area, delay]}} for pdk; a unit model when the table lacks the PDK."""
    data = json.loads(TABLE.read_text()) if TABLE.exists() else {}
    got = data.get("pdks", {}).get(pdk)
    if got:
        return {op: {int(k): v for k, v in by_w.items()} for op, by_w in got.items()}
    unit = {"add": (10, 1.0), "sub": (11, 1.0), "mul": (60, 2.0), "and": (1, .05), "or": (1, .05),
            "xor": (2, .08), "not": (.5, .02), "mux": (2, .1), "eq": (1.5, .3), "lt": (4, .6), "slt": (4, .6),
            "shl": (6, .5), "shr": (6, .5), "redor": (1, .3), "redand": (1, .3), "redxor": (2, .4)}
    return {op: {1: [a, dl], 64: [a * 64 * (64 if op == "mul" else 1), dl * 8]} for op, (a, dl) in unit.items()}


def op_cost(tab: dict, op: str, wd: int) -> tuple[float, float]:
    """(area, delay) of op at width wd, interpolated between fitted widths (extrapolated linearly above)."""
    if op in FREE:
        return 0.0, 0.0
    if op == "addsub" and "addsub" not in tab:
        a1, d1 = op_cost(tab, "sub", wd)
        a2, d2 = op_cost(tab, "xor", wd)
        return a1 + a2, d1 + d2
    if op in ("max", "min"):
        a1, d1 = op_cost(tab, "lt", wd)
        a2, d2 = op_cost(tab, "mux", wd)
        return a1 + a2, d1 + d2
    by_w = tab["shr" if op == "sra" else op]
    ws = sorted(by_w)
    if wd in by_w:
        return tuple(by_w[wd])
    lo = max([x for x in ws if x < wd], default=ws[0])
    hi = min([x for x in ws if x > wd], default=ws[-1])
    if lo == hi:
        f = wd / lo
        return by_w[lo][0] * f * (f if op == "mul" else 1), by_w[lo][1] * (1 + (f - 1) * .5)
    f = (wd - lo) / (hi - lo)
    return tuple(by_w[lo][i] + f * (by_w[hi][i] - by_w[lo][i]) for i in range(2))


class Model:
    """An egglog cost model over (area, delay): area adds up over operands, delay is own + the slowest operand.
    mode "area" compares (area, delay), "delay" compares (delay, area)."""

    def __init__(self, pdk: str = "nangate45", mode: str = "area"):
        self.tab, self.mode = table(pdk), mode

    @classmethod
    def for_pdk(cls, pdk: str, mode: str = "area") -> "Model":
        return cls(pdk, mode)

    def __call__(self, egraph, expr, child_costs):
        """(primary, secondary, width, area, delay): the first two order the terms, the rest carry the sums.
        The primary is an integer (1e-3 um2 or 1e-5 ns): egglog's extractor panicked on float-ordered costs."""
        op = OP_OF.get(get_callable_fn(expr))
        if op is None:                  # a literal argument (a width, a name): free
            return (0, 0.0, 0, 0.0, 0.0)
        subs = [c for c in child_costs if isinstance(c, tuple)]
        args = get_callable_args(expr)
        if op in ("var", "const"):
            area, delay, out_w = 0.0, 0.0, int(get_literal_value(args[1]))
        else:
            wd = max(c[2] for c in subs) if op in BY_OPERAND else int(get_literal_value(args[0]))
            out_w = 1 if op in BY_OPERAND else wd
            area, delay = op_cost(self.tab, op, wd)
        # every node costs a little, so a cycle of free nodes (slices of extensions) never ties its way out
        area = area + 1e-3 + sum(c[3] for c in subs)
        delay = delay + 1e-5 + max((c[4] for c in subs), default=0.0)
        if self.mode == "area":
            return (int(round(area * 1000)), delay, out_w, area, delay)
        return (int(round(delay * 1e5)), area, out_w, area, delay)

    def term_cost(self, roots) -> tuple[float, float]:
        """(area, delay) of ir terms, each distinct node counted once."""
        area, arrive = 0.0, {}
        for n in nodes(roots):
            wd = max((k[1] for k in kids(n)), default=n[1]) if n[0] in BY_OPERAND else n[1]
            a, dl = op_cost(self.tab, n[0], wd)
            area += a
            arrive[n] = dl + max((arrive[k] for k in kids(n)), default=0.0)
        return area, max((arrive[r] for r in roots), default=0.0)
