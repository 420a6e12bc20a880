"""Store a one-bit register inverted: `r <= e` becomes `r <= ~(e)` (its reset value flipped), every read of r
becomes `!r`, and a read already inverted (`~r`, `!r`) becomes plain `r`.

Why: a flip-flop's polarity is fixed by the RTL; ABC optimizes the logic on either side of it but never moves
an inverter across it. A history bit read inverted (`a & ~a0` in an edge detector) costs an inverter after the
flop that storing `~a` would share with the logic before it: RTLLM edge_detect's hand rewrite, 1.107x. Offered
only for a register some read or assignment already inverts (elsewhere nothing can be saved); the flow proves
each rewrite like any other candidate.
"""
from __future__ import annotations

import re

from . import register
from .base import Design, Option, Transform, TransformError
from .idle import blocks
from .syntax import splice, walk

_NOT = ("UnaryBitwiseNotExpression", "UnaryLogicalNotExpression")
_ASSIGN = ("NonblockingAssignmentExpression", "AssignmentExpression")


def _unparen(n):
    while n.kind.name == "ParenthesizedExpression":
        n = n.expression
    return n


def _is(n, r) -> bool:
    n = _unparen(n)
    return n.kind.name == "IdentifierName" and n.identifier.valueText == r


def _plan(p, r):
    """(reads, assignments, inverted uses) of register r: reads as (start, end, node), assignments as their right
    sides; raises TransformError where r is used in a way this kind does not rewrite."""
    reads, rhs, inverted = [], [], 0
    for n in walk(p.module):
        k = n.kind.name
        if k in _ASSIGN and any(x.kind.name in ("IdentifierName", "IdentifierSelectName") and
                                x.identifier.valueText == r for x in walk(n.left)):
            if not _is(n.left, r):
                raise TransformError(f"{r!r} is assigned through a select or a concatenation")
            rhs.append(n.right)
            inverted += _unparen(n.right).kind.name == "UnaryBitwiseNotExpression"
        elif k == "IdentifierSelectName" and n.identifier.valueText == r:
            raise TransformError(f"a select of {r!r}")
        elif k == "IdentifierName" and n.identifier.valueText == r:
            up = n.parent
            while up is not None and up.kind.name == "ParenthesizedExpression":
                up = up.parent
            if any(_in_event(a, n, p) for a in _ancestors(n)):
                raise TransformError(f"{r!r} in an event control")
            if _assigned_target(p, n):
                continue
            if up is not None and up.kind.name in _NOT:
                reads.append((*p.span(up), True))
                inverted += 1
            else:
                reads.append((*p.span(n), False))
    return reads, rhs, inverted


def _ancestors(n):
    while n.parent is not None:
        n = n.parent
        yield n


def _in_event(a, n, p) -> bool:
    """Whether n lies inside the event list (not the body) of timing-control statement a."""
    if a.kind.name != "TimingControlStatement":
        return False
    s, e = p.span(a.timingControl)
    return s <= p.span(n)[0] < e


def _assigned_target(p, n) -> bool:
    """Whether identifier n is the whole target of its assignment (an index inside a target is a read)."""
    for a in _ancestors(n):
        if a.kind.name in _ASSIGN:
            return p.span(_unparen(a.left)) == p.span(n)
    return False


def _read_edits(p, reads, r):
    return [(a, b, r if inv else f"!{r}") for a, b, inv in reads]


def _inside(edits, a, b):
    return [(x - a, y - a, t) for x, y, t in edits if a <= x and y <= b]


def _inverted(p, e, edits, r) -> str:
    """The text of ~(e), the reads of register r inside e already rewritten."""
    e = _unparen(e)
    a, b = p.span(e)
    if e.kind.name == "UnaryBitwiseNotExpression" and not _is(e.operand, r):     # ~x -> x (but ~r is a read)
        a2, b2 = p.span(e.operand)
        return splice(p.code[a2:b2], _inside(edits, a2, b2))
    text = p.code[a:b].strip()
    if re.fullmatch(r"(1'[bBdDhH])?0+|1'[bB]0", text):
        return "1'b1"
    if re.fullmatch(r"(1'[bBdDhH])?1|1'[bB]1", text):
        return "1'b0"
    inner = splice(p.code[a:b], _inside(edits, a, b))
    return f"~{inner}" if e.kind.name == "IdentifierName" else f"~({inner})"


def rewrite(p, r: str) -> str:
    if p.width(r) != 1 or r in {port.name for port in p.body.portList}:
        raise TransformError(f"{r!r} is not a one-bit internal register")
    if not any(r in b.regs for b in blocks(p)):
        raise TransformError(f"{r!r} is not a register of a clocked block")
    reads, rhs, _ = _plan(p, r)
    edits = _read_edits(p, reads, r)
    spans = [p.span(_unparen(e)) for e in rhs]
    outer = [(a, b, _inverted(p, e, edits, r)) for (a, b), e in zip(spans, rhs)]
    rest = [(x, y, t) for x, y, t in edits if not any(a <= x and y <= b for a, b in spans)]
    return splice(p.code, outer + rest)


class InvertReg(Transform):
    name = "invert_reg"
    summary = "store a one-bit register inverted where its reads or its updates invert it"

    def options(self, d: Design) -> list[Option]:
        p, out = d.parsed(), []
        ports = {port.name for port in p.body.portList}
        for r in sorted({r for b in blocks(p) for r in b.regs}):
            if r in ports or p.width(r) != 1:
                continue
            try:
                _, _, inverted = _plan(p, r)
            except TransformError:
                continue
            if inverted:
                out.append(self.option(r, f"{r}: store it inverted (its inverted uses read the flip-flop directly)"))
        return out

    def apply(self, d: Design, o: Option) -> str:
        return rewrite(d.parsed(), o.site)


register(InvertReg())
