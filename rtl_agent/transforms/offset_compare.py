"""Kind `offset_compare`: `x == e - c` beside an increment `x + c` becomes `x_inc == e` with one incrementer
`x_inc = x + c` that both read.

Recognised: an `==` / `!=` between a signal x and `e - c` (c a positive constant, x and e unsigned, neither
written by a blocking assignment, whose value would depend on where it is read), where the design also assigns
`x + c` (a counter's step: `count <= count + 1`). A terminal count against a programmable period, `count ==
period - 1`, is the usual form.

Why: the compare needs a decrementer on e (at the compare's width, 32 bits beside an unsized `1`) that
synthesis does not trade for the incrementer it already builds for x: modulo the compare's width W,
x == e - c exactly when x + c == e, and x_inc = x + c carries one bit more than x, so `x_inc == e`, both sides
zero-extended, is the same compare wherever W is wider than x_inc (else the compare reads x_inc's low W bits).
Each assignment of `x + c` reads x_inc, which is the exact sum, so it truncates or extends to the target as the
original did. RTLLM square_wave by hand: 1.462x (bench/headroom/square_wave/shared_incr.v). The flow proves
every rewrite.
"""
from __future__ import annotations

from . import register
from .base import Design, Option, Transform, TransformError
from .procedural import NoSite, _indent, _is, _member, _refs, _strip, _sym, const
from .share import _fresh
from .syntax import splice

_EQ = {"Equality": "==", "Inequality": "!=", "CaseEquality": "==", "CaseInequality": "!="}


def _const(e):
    try:
        return const(e, {})
    except NoSite:
        return None


def _unsigned(e) -> bool:
    return e.type.isIntegral and not e.type.isSigned


def _blocking(p) -> list:
    """Symbols a blocking assignment writes outside initial blocks (whose values are only the start state)."""
    return [s for a in p.ast_nodes(lambda n: n.kind.name == "Assignment" and not n.isNonBlocking)
            if a.syntax is None or _member(a.syntax).kind.name not in ("InitialBlock", "ContinuousAssign")
            for s in [r.symbol for r in _refs(a.left)] if s.kind.name == "Variable"]


def _sites(d: Design) -> dict:
    """{x: (c, compares [(node, e, compare width)], increments [assignment rhs nodes])}."""
    p = d.parsed()
    blocked = _blocking(p)
    found = {}
    for c in p.ast_nodes(lambda n: n.kind.name == "BinaryOp" and n.op.name in _EQ and n.syntax is not None):
        for a, b in ((c.left, c.right), (c.right, c.left)):
            x, sub = _sym(a), _strip(b)
            if x is None or sub.kind.name != "BinaryOp" or sub.op.name != "Subtract" or sub.syntax is None:
                continue
            k, e = _const(sub.right), _strip(sub.left)
            if k is None or k <= 0 or _const(e) is not None or e.syntax is None:
                continue
            if not (_unsigned(_strip(a)) and _unsigned(e)) or x.kind.name not in ("Variable", "Net"):
                continue
            if any(_is(s, r.symbol) for s in blocked for r in _refs(e) + [_strip(a)]):
                continue
            found.setdefault((x.name, k), (x, [], []))[1].append((c, e, int(a.type.bitWidth)))
            break
    for asg in p.ast_nodes(lambda n: n.kind.name == "Assignment" and not n.isCompound):
        r = _strip(asg.right)
        if r.kind.name != "BinaryOp" or r.op.name != "Add" or r.syntax is None:
            continue
        for a, b in ((r.left, r.right), (r.right, r.left)):
            x, k = _sym(a), _const(b)
            if x is not None and k is not None and (x.name, k) in found and _unsigned(_strip(a)):
                found[(x.name, k)][2].append(r)
                break
    return {key: v for key, v in found.items() if v[2]}


class OffsetCompare(Transform):
    name = "offset_compare"
    summary = "a compare with e - c beside an increment by c compares the shared incrementer with e"

    def options(self, d: Design) -> list[Option]:
        return [self.option(f"{x}+{k}", f"compare {x} + {k} with the operand of `- {k}` ({len(cmps)} compare"
                                        f"{'s' if len(cmps) > 1 else ''}), one incrementer shared with the "
                                        f"{len(incs)} increment{'s' if len(incs) > 1 else ''} of {x}", x=x, c=k)
                for (x, k), (_, cmps, incs) in _sites(d).items()]

    def apply(self, d: Design, o: Option) -> str:
        key = (o.params.get("x"), o.params.get("c"))
        got = _sites(d).get(key)
        if got is None:
            raise TransformError(f"no compare of {key[0]} with an operand minus {key[1]} beside its increment")
        p = d.parsed()
        sym, cmps, incs = got
        x, k = key
        wi = max(int(sym.type.bitWidth), k.bit_length()) + 1
        name = _fresh(d.code, f"{x}_inc")
        edits = []
        for c, e, w in cmps:
            lhs = name if w >= wi else f"{name}[{w - 1}:0]"
            edits.append(p.span(c.syntax) + (f"({lhs} {_EQ[c.op.name]} {p.text(e.syntax)})",))
        edits += [p.span(r.syntax) + (name,) for r in incs]
        at = min(p.span(_member(n.syntax))[0] for n in [c for c, _, _ in cmps] + incs)
        ind = _indent(d.code, at)
        decl = (f"// offset_compare: {x} + {k}, read by the increment and by the compare with e - {k}\n"
                f"{ind}wire [{wi - 1}:0] {name} = {x} + {wi}'d{k};\n{ind}")
        return splice(d.code, edits + [(at, at, decl)])


register(OffsetCompare())
