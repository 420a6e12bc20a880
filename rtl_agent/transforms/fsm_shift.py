"""A one-hot register advanced by shifting (`state <= state << 1`) becomes a binary counter: `state[k]` becomes
`(state == k)`, the one-hot literal `1 << k` becomes k, and `state << 1` becomes `state + 1`.

fsm_encode's `counter` encoding. The register must be read only through constant bit selects (`state[k]`) or
`==`/`!=` against one-hot literals, and assigned only one-hot literals, itself or itself shifted left by one
(through `?:` arms). That the register stays one-hot from reset is not checked here: the proof checks it (a
counter wraps where a shifted one-hot register runs out of bits; equal only if that never happens).
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field

from .base import TransformError
from .fsm_common import ASSIGN, clocked, leaves, literal_value, target, unparen
from .syntax import splice, walk

@dataclass
class ShiftReg:
    name: str
    bits: int                                    # the one-hot width
    edits: list = field(default_factory=list)   # (node, kind, value): "lit" k, "shift", "bit" k, "cmp" k


def _onehot(p, n) -> int | None:
    n = unparen(n)
    if n.kind.name not in ("IntegerVectorExpression", "IntegerLiteralExpression"):
        return None
    v = literal_value(p.text(n))
    return v.bit_length() - 1 if v and v & (v - 1) == 0 else None


def _assignment_leaf(p, reg, leaf, out) -> bool:
    if leaf.kind.name == "IdentifierName" and leaf.identifier.valueText == reg:
        return True
    if leaf.kind.name == "LogicalShiftLeftExpression":
        a, b = unparen(leaf.left), unparen(leaf.right)
        if a.kind.name == "IdentifierName" and a.identifier.valueText == reg and p.text(b).strip() in ("1", "1'b1",
                                                                                                        "1'd1"):
            out.edits.append((leaf, "shift", None))
            return True
        return False
    k = _onehot(p, leaf)
    if k is None or k >= out.bits:
        return False
    out.edits.append((leaf, "lit", k))
    return True


def _read(p, reg, n, out) -> bool:
    """A read of reg that is not an assignment to it: a constant bit select, a compare, or inside a shift."""
    par = n.parent
    while par is not None and par.kind.name == "ParenthesizedExpression":
        par = par.parent
    if n.kind.name == "IdentifierSelectName":
        m = re.fullmatch(rf"{re.escape(reg)}\s*\[\s*(\d+)\s*\]", p.text(n))
        if m is None or int(m.group(1)) >= out.bits:
            return False
        out.edits.append((n, "bit", int(m.group(1))))
        return True
    if par is not None and par.kind.name == "LogicalShiftLeftExpression":
        return True                                # checked where the shift is assigned
    t = target(p, n)
    if t is not None and t[1] == reg:
        return True                                # a hold through a `?:` arm, checked with its assignment
    if par is not None and par.kind.name in ("EqualityExpression", "InequalityExpression"):
        other = par.right if unparen(par.left) is n else par.left
        k = _onehot(p, other)
        if k is None:
            return False
        out.edits.append((unparen(other), "lit", k))
        return True
    return False


def find_shift_regs(p, scan) -> list[ShiftReg]:
    found = []
    for reg in sorted(scan.variables):
        bits = p.width(reg)
        if not bits or bits < 3:
            continue
        out, ok, in_clocked = ShiftReg(reg, bits), True, False
        for n in scan.uses.get(reg, []):
            par = n.parent
            if par is not None and par.kind.name in ASSIGN and par.left is n:
                in_clocked = in_clocked or clocked(par)
                ok = all(_assignment_leaf(p, reg, leaf, out) for leaf in leaves(par.right))
            else:
                ok = _read(p, reg, n, out)
            if not ok:
                break
        shifted = any(e[1] == "shift" for e in out.edits)
        if ok and in_clocked and shifted and any(e[1] == "lit" for e in out.edits):
            found.append(out)
    return found


def to_counter(p, sr: ShiftReg) -> str:
    w = max(1, (sr.bits - 1).bit_length())
    edits = []
    for n in walk(p.module):
        if n.kind.name == "DataDeclaration":
            names = [d.name.valueText for d in n.declarators if hasattr(d, "name")]
            if sr.name in names:
                if len(names) != 1:
                    raise TransformError(f"{sr.name} shares its declaration")
                tt = p.text(n.type)
                edits.append((*p.span(n.type), re.sub(r"\[[^\]]*\]", f"[{w - 1}:0]", tt, count=1)))
    for node, kind, k in sr.edits:
        a, b = p.span(node)
        new = {"lit": f"{w}'d{k}", "shift": f"{sr.name} + {w}'d1", "bit": f"({sr.name} == {w}'d{k})"}[kind]
        edits.append((a, b, new))
    return splice(p.code, edits)
