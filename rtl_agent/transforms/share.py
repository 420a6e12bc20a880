"""Share a repeated operator: the same `a * b` (or `a + b`, `a - b`, a shift, a compare) written in several
places becomes one wire that every place reads.

Why: Yosys merges identical cells only when their widths match too; `a * b` in a 16-bit and in a 20-bit
context are two multipliers (mac_dup's reference keeps two multiplier arrays: bench/headroom/mac_dup). The wire
is as wide as the full result (a product: the operands' widths summed; a sum: one bit more than the wider), so
every use reads the same value it computed before. Differences (`-`) and shifts wrap at their context width, so
they are shared only where every use has the same width. Operands assigned by a blocking assignment are left
alone (their value depends on where the read is); the flow proves the rest.
"""
from __future__ import annotations

import re

from . import register
from .base import Design, Option, Transform, TransformError
from .syntax import splice, walk

try:
    from pyslang import ast
except ImportError:             # pragma: no cover
    ast = None

_FULL = {"Multiply": lambda l, r: l + r, "Add": lambda l, r: max(l, r) + 1}
_SAME = {"Subtract", "ShiftLeft", "ShiftRight", "LessThan", "GreaterThan", "LessThanEqual", "GreaterThanEqual",
         "Equality", "Inequality"}
_COMPARE = {"LessThan", "GreaterThan", "LessThanEqual", "GreaterThanEqual", "Equality", "Inequality"}


def _self_width(e) -> int:
    while e.kind == ast.ExpressionKind.Conversion:
        e = e.operand
    return int(e.type.bitWidth)


def _blocking_targets(p) -> set:
    """Names a blocking assignment writes anywhere (statements, for-loop steps) and loop variables."""
    names = set()
    for n in walk(p.module):
        if n.kind.name == "AssignmentExpression":
            names |= set(re.findall(r"[A-Za-z_]\w*", p.text(n.left)))
        elif n.kind.name in ("ForVariableDeclaration", "GenvarDeclaration"):
            names |= set(re.findall(r"[A-Za-z_]\w*", p.text(n)))
    return names


def _groups(d: Design) -> dict:
    """{normalised expression: [(start, end, context width, full width)]} for operators written twice or more."""
    p = d.parsed()
    blocked = _blocking_targets(p)
    signals = set(p.symbols(("Net", "Variable")))
    found = {}
    for b in p.ast_nodes(lambda e: isinstance(e, ast.Expression) and e.kind == ast.ExpressionKind.BinaryOp):
        op = b.op.name
        if op not in _FULL and op not in _SAME or b.syntax is None:
            continue
        text = re.sub(r"\s+", "", p.text(b))
        names = set(re.findall(r"[A-Za-z_]\w*", text))
        if names & blocked or not names & signals or "(" in text and "?" in text:
            continue       # a constant (parameters only) is no hardware to share
        full = _FULL[op](_self_width(b.left), _self_width(b.right)) if op in _FULL else \
            (1 if op in _COMPARE else int(b.type.bitWidth))
        a, z = p.span(b.syntax)
        found.setdefault((op, text), []).append((a, z, int(b.type.bitWidth), full))
    out = {}
    for (op, text), uses in found.items():
        if len(uses) < 2:
            continue
        if op in _SAME and len({u[2] for u in uses}) > 1 and op not in _COMPARE:
            continue
        out[text] = uses
    return out


class Share(Transform):
    name = "share"
    summary = "one wire for an operator written in several places"

    def options(self, d: Design) -> list[Option]:
        return [self.option(text, f"compute {text} once and share it ({len(uses)} uses)", expr=text)
                for text, uses in sorted(_groups(d).items())]

    def apply(self, d: Design, o: Option) -> str:
        uses = _groups(d).get(o.params.get("expr"))
        if not uses:
            raise TransformError(f"{o.params.get('expr')} is not written twice in this design")
        p = d.parsed()
        wire = _fresh(d.code, "shared")
        width = max(u[3] for u in uses)
        first = min(u[0] for u in uses)
        expr = d.code[uses[0][0]:uses[0][1]]
        decl = f"\n    wire [{width - 1}:0] {wire} = {expr};   // shared: {len(uses)} uses\n"
        at = _member_start(p, first)
        return splice(d.code, [(at, at, decl)] + [(a, z, wire) for a, z, _, _ in uses])


def _member_start(p, offset: int) -> int:
    """Where to declare a wire: at the start of the top module's body (after its header's `;`)."""
    head = p.module.header
    return p.span(head)[1]


def _fresh(code: str, stem: str) -> str:
    i, name = 0, stem
    while re.search(rf"\b{name}\b", code):
        i += 1
        name = f"{stem}{i}"
    return name


register(Share())
