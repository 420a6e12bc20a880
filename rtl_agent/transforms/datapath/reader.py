"""Combinational sites of a design as datapath terms (ir), read from pyslang's elaborated tree.

A site is a continuous assignment (`assign y = e;`, `wire [7:0] t = e;`) or a combinational always block
(`always @*`, `always_comb`, or an event list without edges) of blocking assignments, if/else and case. Its
terms are in the design's inputs and registers: a net driven by one continuous assignment and read only by
this site is inlined (so a case over four adders that live in wires is one site), and reported so the
rewrite can remove its then dead driver. Anything else (a loop, a function call, division, a latch, a signed
input) makes the site unsupported: `sites()` leaves it out with a reason.

    sites(parsed) -> (list[Site], {site label: reason left out})
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field

from .ir import mask


class Unsupported(ValueError):
    pass


@dataclass
class Site:
    label: str                  # "assign y (line 12)" / "always (line 15)"
    kind: str                   # assign | decl | always
    span: tuple                 # (start, end) offsets of the statement replaced
    outputs: list               # [(lhs text, width)] in order
    roots: list                 # terms, one per output
    inlined: list = field(default_factory=list)   # nets whose only reader is this site: (name, driver span)
    line: int = 0
    at: int = 0                 # where the statement starts (wires for shared nodes go on the line before)


_BIN = {"Add": "add", "Subtract": "sub", "Multiply": "mul", "BinaryAnd": "and", "BinaryOr": "or",
        "BinaryXor": "xor", "LogicalShiftLeft": "shl", "ArithmeticShiftLeft": "shl", "LogicalShiftRight": "shr"}
_LIT = re.compile(r"^(\d+)?'s?([bdhoBDHO])([0-9a-fA-F_]+)$")


def literal(text: str) -> int:
    text = text.replace("_", "").strip()
    if text.lstrip("-").isdigit():
        return int(text)
    m = _LIT.match(text)
    if not m:
        raise Unsupported(f"literal {text}")
    return int(m.group(3), {"b": 2, "d": 10, "h": 16, "o": 8}[m.group(2).lower()])


def to1(t):
    """A condition as one bit (a wider value is true when nonzero)."""
    return t if t[1] == 1 else ("redor", 1, t)


def fit(t, w: int, signed: bool = False):
    if t[1] == w:
        return t
    if t[1] > w:
        return slice_of(t, 0, w)
    return ("sext" if signed else "zext", w, t)


def concat(parts):
    """parts most significant first."""
    out = parts[-1]
    for p in reversed(parts[:-1]):
        out = ("concat", p[1] + out[1], p, out)
    return out


def slice_of(v, lo: int, w: int):
    """v[lo+w-1:lo], simplified through concatenations, slices and constants."""
    if lo == 0 and w == v[1]:
        return v
    op = v[0]
    if op == "const":
        return ("const", w, (v[2] >> lo) & ((1 << w) - 1))
    if op == "slice":
        return slice_of(v[2], v[3] + lo, w)
    if op == "concat":
        hi, low = v[2], v[3]
        if lo + w <= low[1]:
            return slice_of(low, lo, w)
        if lo >= low[1]:
            return slice_of(hi, lo - low[1], w)
        return concat([slice_of(hi, 0, lo + w - low[1]), slice_of(low, lo, low[1] - lo)])
    if op == "zext" and lo >= v[2][1]:
        return ("const", w, 0)
    return ("slice", w, v, lo)


def const_of(e) -> int:
    cv = getattr(e, "constant", None)
    if cv is None:
        raise Unsupported("non-constant index")
    return literal(str(cv))


class Reader:
    """Expressions to terms. `lookup(name, symbol)` gives a signal's term (env, inlined net or input)."""

    def __init__(self, lookup):
        self.lookup = lookup

    def expr(self, e):
        t = self._expr(e)
        w = int(e.type.bitWidth)
        if t[1] != w:
            raise Unsupported(f"width mismatch reading {e.kind.name}")
        return t

    def _expr(self, e):
        k = e.kind.name
        w = int(e.type.bitWidth) if e.type.isIntegral else 0
        if not w:
            raise Unsupported(f"non-integral {k}")
        if k in ("IntegerLiteral", "UnbasedUnsizedIntegerLiteral"):
            v = e.value
            if v.hasUnknown:        # an x/z value stays as written: an opaque leaf that no rule looks into
                return ("var", w, str(e.syntax).strip() if e.syntax is not None else f"{w}'bx")
            return ("const", w, literal(str(v)) & mask(w))
        if k == "NamedValue":
            return self.lookup(e.symbol)
        if k == "Conversion":
            o = e.operand
            return fit(self.expr(o), w, bool(o.type.isSigned))
        if k == "BinaryOp":
            return self._binary(e, w)
        if k == "UnaryOp":
            return self._unary(e, w)
        if k == "ConditionalOp":
            if len(e.conditions) != 1:
                raise Unsupported("pattern condition")
            return ("mux", w, to1(self.expr(e.conditions[0].expr)), self.expr(e.left), self.expr(e.right))
        if k == "Concatenation":
            parts = [self.expr(o) for o in e.operands if int(o.type.bitWidth) > 0]
            return concat(parts)
        if k == "Replication":
            n = const_of(e.count)
            return concat([self.expr(e.concat)] * n)
        if k in ("RangeSelect", "ElementSelect"):
            return self._select(e, w)
        if k == "Call" and e.subroutineName in ("$signed", "$unsigned"):
            return self.expr(e.arguments[0])
        raise Unsupported(f"expression {k}")

    def _binary(self, e, w):
        op = e.op.name
        a, b = self.expr(e.left), self.expr(e.right)
        if op == "ArithmeticShiftRight":
            return ("sra" if e.type.isSigned else "shr", w, a, b)
        if op in _BIN:
            return (_BIN[op], w, a, b)
        if op == "BinaryXnor":
            return ("not", w, ("xor", w, a, b))
        signed = bool(e.left.type.isSigned and e.right.type.isSigned)
        cmp = {"Equality": ("eq", a, b, False), "CaseEquality": ("eq", a, b, False),
               "Inequality": ("eq", a, b, True), "CaseInequality": ("eq", a, b, True),
               "LessThan": ("lt", a, b, False), "GreaterThan": ("lt", b, a, False),
               "LessThanEqual": ("lt", b, a, True), "GreaterThanEqual": ("lt", a, b, True)}
        if op in cmp:
            name, x, y, neg = cmp[op]
            if name == "lt" and signed:
                name = "slt"
            t = (name, 1, x, y)
            return ("not", 1, t) if neg else t
        if op in ("LogicalAnd", "LogicalOr"):
            return ("and" if op == "LogicalAnd" else "or", 1, to1(a), to1(b))
        raise Unsupported(f"operator {op}")

    def _unary(self, e, w):
        op, a = e.op.name, self.expr(e.operand)
        if op == "Plus":
            return a
        if op == "Minus":
            return ("sub", w, ("const", w, 0), a)
        if op == "BitwiseNot":
            return ("not", w, a)
        if op == "LogicalNot":
            return ("not", 1, to1(a))
        red = {"BitwiseOr": "redor", "BitwiseAnd": "redand", "BitwiseXor": "redxor"}
        neg = {"BitwiseNor": "redor", "BitwiseNand": "redand", "BitwiseXnor": "redxor"}
        if op in red:
            return (red[op], 1, a)
        if op in neg:
            return ("not", 1, (neg[op], 1, a))
        raise Unsupported(f"operator {op}")

    def _select(self, e, w):
        base = e.value
        lo_decl = declared_lsb(base)
        v = self.expr(base)
        if e.kind.name == "ElementSelect":
            try:
                i = const_of(e.selector) - lo_decl
            except Unsupported:
                idx = self.expr(e.selector)
                if lo_decl:
                    raise
                return ("slice", 1, ("shr", v[1], v, idx), 0)
            return slice_of(v, i, 1)
        sk = str(e.selectionKind).split(".")[-1]
        left, right = const_of(e.left), const_of(e.right)
        if sk == "Simple":
            lo = min(left, right) - lo_decl
        elif sk == "IndexedUp":
            lo = left - lo_decl
        else:
            lo = left - right + 1 - lo_decl
        if lo < 0 or lo + w > v[1]:
            raise Unsupported("select out of range")
        return slice_of(v, lo, w)


def declared_lsb(e) -> int:
    """The declared lower index of a packed vector (0 for [7:0]); ascending ranges are not supported."""
    t = e.type
    try:
        r = t.getFixedRange()
    except Exception:           # noqa: BLE001 - not a simple vector
        return 0
    if r.left < r.right:
        raise Unsupported("ascending range")
    return r.right
