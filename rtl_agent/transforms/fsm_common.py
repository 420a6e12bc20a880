"""What the FSM kinds share: literal values, one scan of a module's names, and how a value flows into an
assignment (through `?:` arms and parentheses)."""
from __future__ import annotations

import re

from .syntax import syntax, walk

_LIT = re.compile(r"^\s*(\d+)?\s*'\s*[sS]?\s*([bBoOdDhH])\s*([0-9a-fA-F_]+)\s*$")
_BASES = {"b": 2, "o": 8, "d": 10, "h": 16}
ASSIGN = ("AssignmentExpression", "NonblockingAssignmentExpression")


def nodes(lst):
    return [d for d in lst if isinstance(d, syntax.SyntaxNode)]


def literal_value(text: str) -> int | None:
    """The value of a Verilog integer literal without x/z (`3'd4`, `5'b0_0001`, `12`), else None."""
    t = text.strip()
    if re.fullmatch(r"\d[\d_]*", t):
        return int(t.replace("_", ""))
    m = _LIT.match(t)
    if not m:
        return None
    try:
        return int(m.group(3).replace("_", ""), _BASES[m.group(2).lower()])
    except ValueError:
        return None


class Scan:
    """One pass over the top module: every identifier's uses, the parameters, the variables."""

    def __init__(self, p):
        self.p = p
        syms = p.symbols()
        self.ports = {x.name for x in (p.body.portList if p.body is not None else ())}
        self.params = {}
        for name, s in syms.items():
            if s.kind.name == "Parameter" and s.value is not None and not s.value.hasUnknown():
                try:
                    self.params[name] = int(s.value.value)
                except (TypeError, ValueError):
                    pass
        self.variables = {n for n, s in syms.items() if s.kind.name == "Variable" and n not in self.ports}
        self.uses: dict[str, list] = {}
        for n in walk(p.module):
            if n.kind.name in ("IdentifierName", "IdentifierSelectName"):     # x and x[i]
                self.uses.setdefault(n.identifier.valueText, []).append(n)

    def const(self, node) -> int | None:
        node = unparen(node)
        if node.kind.name == "IdentifierName":
            return self.params.get(node.identifier.valueText)
        if node.kind.name in ("IntegerVectorExpression", "IntegerLiteralExpression"):
            return literal_value(self.p.text(node))
        return None


def unparen(n):
    while n.kind.name == "ParenthesizedExpression":
        n = n.expression
    return n


def up(n):
    """The node's parent, skipping parentheses, and the child that leads there."""
    child, par = n, n.parent
    while par is not None and par.kind.name == "ParenthesizedExpression":
        child, par = par, par.parent
    return child, par


def target(p, n):
    """The assignment that value node n flows into through `?:` arms: (assignment, lhs name) or None."""
    child, par = up(n)
    while par is not None and par.kind.name == "ConditionalExpression":
        if child is par.predicate:
            return None
        child, par = up(par)
    if par is None or par.kind.name not in ASSIGN or child is par.left:
        return None
    lhs = par.left
    return (par, lhs.identifier.valueText) if lhs.kind.name == "IdentifierName" else None


def leaves(n):
    n = unparen(n)
    if n.kind.name == "ConditionalExpression":
        return leaves(n.left) + leaves(n.right)
    return [n]


def clocked(n) -> bool:
    while n is not None and n.kind.name not in ("AlwaysBlock", "AlwaysFFBlock", "AlwaysCombBlock",
                                                   "AlwaysLatchBlock", "ContinuousAssign"):
        n = n.parent
    if n is None or n.kind.name != "AlwaysBlock":
        return n is not None and n.kind.name == "AlwaysFFBlock"
    tc = getattr(n.statement, "timingControl", None)
    return tc is not None and bool(re.search(r"\b(posedge|negedge)\b", str(tc)))
