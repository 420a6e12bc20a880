"""Kind `bound_compare`: `x == K` on a register that never exceeds K tests only the bits set in K.

Recognised: a register x (a whole vector, descending range) every assignment of which is a constant at most K,
`x + 1` or x itself, compared with `==` / `!=` against K, the largest constant it is compared with (a counter
that counts to K and is cleared). Where the reference's testbench reached x (Design.ranges), its largest value
must be at most K too. The compare becomes the AND of x's bits that are 1 in K: for x in 0..K, every bit of K
set in x means x >= K, so x == K. The zero bits of K drop out of the compare (calendar's Secs == 59 and
Mins == 59: 6-input compares become 5-input ANDs, 1.255x; freq_div's cnt_10 == 4 a single bit).

Why: synthesis does not know the register's reachable range (an invariant of the state, not of the logic), so it
keeps the full compare. The bound is a claim the structure suggests, not a proof: a counter incremented
past K where the structure looked bounded (a +1 under a condition that does not exclude x == K) is refuted by
the flow's equivalence check, which is what decides. One option per register, and the first two, three, ... of
them (in the order of their first compare) together.
"""
from __future__ import annotations

from . import register
from .base import Design, Option, Transform, TransformError
from .procedural import NoSite, _is, _refs, _strip, _sym, const
from .syntax import splice

_EQ = {"Equality": False, "CaseEquality": False, "Inequality": True, "CaseInequality": True}


def _const(e):
    try:
        return const(e, {})
    except NoSite:
        return None


def _bounded(p, x, k) -> bool:
    """Every assignment of x is a constant in 0..k, `x + 1` or x: the structure of a counter to k."""
    for a in p.ast_nodes(lambda n: n.kind.name == "Assignment"):
        if not any(_is(r.symbol, x) for r in _refs(a.left)):
            continue
        if a.isCompound or not _is(_sym(a.left), x):
            return False            # a part of x, a concatenation, `x += ...`: not a plain counter
        r = _strip(a.right)
        v = _const(r)
        if v is not None:
            if not 0 <= v <= k:
                return False
            continue
        if _is(_sym(r), x):
            continue
        if r.kind.name == "BinaryOp" and r.op.name == "Add" and (
                (_is(_sym(r.left), x) and _const(r.right) == 1) or (_is(_sym(r.right), x) and _const(r.left) == 1)):
            continue
        return False
    return True


def _test(x, rng, k: int, negate: bool) -> str:
    """The AND (NAND for !=) of x's bits that are 1 in k, x's declared range [rng.left:rng.right]."""
    bits = [f"{x}[{rng.right + i}]" for i in reversed(range(k.bit_length())) if (k >> i) & 1]
    body = bits[0] if len(bits) == 1 else f"&{{{', '.join(bits)}}}"
    return f"(~{body})" if negate else f"({body})"


def _sites(d: Design) -> dict:
    """{register name: (k, [(start, end, replacement)])} of the bounded compares."""
    p = d.parsed()
    found = {}
    for c in p.ast_nodes(lambda n: n.kind.name == "BinaryOp" and n.op.name in _EQ and n.syntax is not None):
        for a, b in ((c.left, c.right), (c.right, c.left)):
            x, k = _sym(a), _const(b)
            if x is not None and k is not None and x.kind.name == "Variable" and x.type.isIntegral:
                found.setdefault(x.name, (x, []))[1].append((c, k))
                break
    out = {}
    for name, (x, cmps) in found.items():
        w = int(x.type.bitWidth)
        k = max(v for _, v in cmps)
        rng = x.type.getBitVectorRange()
        if w < 2 or k <= 0 or k >= (1 << w) - 1 or bin(k).count("1") >= w or rng.left < rng.right:
            continue
        seen = d.ranges.get(name)
        if seen is not None and seen.hi > k:
            continue                # the testbench took x past k: not a bound
        if not _bounded(p, x, k):
            continue
        edits = [p.span(c.syntax) + (_test(name, rng, k, _EQ[c.op.name]),) for c, v in cmps if v == k]
        out[name] = (k, edits)
    return out


class BoundCompare(Transform):
    name = "bound_compare"
    summary = "a compare of a counter with its largest value tests only the bits set in that value"

    def options(self, d: Design) -> list[Option]:
        sites = _sites(d)
        order = sorted(sites, key=lambda x: sites[x][1][0][0])      # by the first compare in the text
        opts = [self.option(x, f"the compares of {x} with {k} test only the bits set in {k} ({x} counts 0..{k})",
                            regs=[x]) for x, (k, _) in sites.items()]
        # the first j registers together: one bound alone may not pay (calendar's Secs alone 0.98x, Secs and
        # Mins 1.255x) and a bound reached only after many cycles (Hours) may not be proven in time
        for j in range(2, len(order) + 1):
            regs = order[:j]
            opts.append(self.option("+".join(regs), f"the compares of {', '.join(regs)} with their largest values "
                                                    f"test only the bits set in them", regs=regs))
        return opts

    def apply(self, d: Design, o: Option) -> str:
        sites = _sites(d)
        regs = list(o.params.get("regs") or [])
        missing = [x for x in regs if x not in sites]
        if missing or not regs:
            raise TransformError(f"no bounded compare of {', '.join(missing) or '(none)'}")
        return splice(d.code, [e for x in regs for e in sites[x][1]])


register(BoundCompare())
