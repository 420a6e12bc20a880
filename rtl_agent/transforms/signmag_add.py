"""Kind `signmag_add`: a sign-magnitude addition written as an if whose one side adds, `X = A + B`, and whose
other side takes the magnitude of the difference, `if (A > B) X = A - B; else X = B - A;` (once or in
several branches, any of >, >=, <, <=), becomes one adder with a conditionally inverted operand.

    wire      sub = <the condition that selects the difference side>;
    wire [W:0] s  = {0, A} + ({0, B} ^ {W+1{sub}}) + sub;        // A + B, or A - B with its borrow in s[W]
    wire [W-1:0] m = (sub & s[W]) ? -s[W-1:0] : s[W-1:0];       // A + B, or |A - B|
The assignments of X read m (s where X is wider than W: the sum's carry), and the compares of A and B on the
difference side read the borrow and the zero test of s.

Why: synthesis builds one cell per written operator, an adder, two subtractors and a comparator, and does not
share arithmetic across exclusive branches (the conditions read variables the branches write, so mux_share
leaves the block alone). RTLLM fixed_point_adder: 1.63x proven by this rewrite (under that design's noise floor of
1.66x), 2.14x by hand
(bench/headroom/fixed_point_adder/one_adder.v, which also rebuilds the sign logic). The flow proves every
rewrite; A, B and the condition must read no variable a blocking assignment writes (their values would
depend on where they are read), and the first statement of each side must be the assignment of X.
"""
from __future__ import annotations

import re

from . import register
from .base import Design, Option, Transform, TransformError
from .procedural import _flat, _indent, _member, _refs, _strip
from .share import _fresh
from .syntax import splice

_CMP = {"GreaterThan": ">", "GreaterThanEqual": ">=", "LessThan": "<", "LessThanEqual": "<="}


def _norm(p, e) -> str:
    return re.sub(r"\s+", "", p.text(e.syntax)) if e.syntax is not None else ""


def _first_assign(s):
    """The assignment that is the first statement of s (begin/end opened), or None."""
    got = _flat(s) if s is not None else []
    if got and got[0].kind.name == "ExpressionStatement" and got[0].expr.kind.name == "Assignment" \
            and not got[0].expr.isCompound:
        return got[0].expr
    return None


def _binop(e, ops):
    e = _strip(e)
    return e if e.kind.name == "BinaryOp" and e.op.name in ops and e.syntax is not None else None


def _walk_ifs(s, out):
    """Every conditional statement under s."""
    def visit(n):
        if getattr(n, "kind", None) is not None and n.kind.name == "Conditional":
            out.append(n)
        return True
    s.visit(visit)


def _blocked(p) -> list:
    """Variables a procedural blocking assignment writes (initial blocks only set the start state)."""
    return [r.symbol for a in p.ast_nodes(lambda n: n.kind.name == "Assignment" and not n.isNonBlocking)
            if a.syntax is None or _member(a.syntax).kind.name not in ("InitialBlock", "ContinuousAssign")
            for r in _refs(a.left) if r.symbol.kind.name == "Variable"]


def _abs_site(p, s, pair, x):
    """(compare, larger-first then-side?) when s is `if (P op Q) X = big - small; else X = small - big;` over
    the operand texts in pair, the same target text x."""
    if len(s.conditions) != 1 or s.conditions[0].pattern is not None or s.ifFalse is None:
        return None
    c = _binop(s.conditions[0].expr, _CMP)
    t, f = _first_assign(s.ifTrue), _first_assign(s.ifFalse)
    if c is None or t is None or f is None or {_norm(p, _strip(c.left)), _norm(p, _strip(c.right))} != set(pair):
        return None
    dt, df = _binop(t.right, ("Subtract",)), _binop(f.right, ("Subtract",))
    if dt is None or df is None or _norm(p, t.left) != x or _norm(p, f.left) != x:
        return None
    big, small = (c.left, c.right) if c.op.name.startswith("Greater") else (c.right, c.left)
    big, small = _norm(p, _strip(big)), _norm(p, _strip(small))
    if (_norm(p, _strip(dt.left)), _norm(p, _strip(dt.right))) != (big, small) or \
            (_norm(p, _strip(df.left)), _norm(p, _strip(df.right))) != (small, big):
        return None
    return c, t, f


def _sites(d: Design) -> list:
    """[(outer conditional, add assignment, add on the true side?, [(compare, then asg, else asg)], A, B, x)]."""
    p = d.parsed()
    blocked = _blocked(p)
    ifs = p.ast_nodes(lambda n: n.kind.name == "Conditional")
    out = []
    for s in ifs:
        if len(s.conditions) != 1 or s.conditions[0].pattern is not None or s.ifFalse is None or s.syntax is None:
            continue
        for side, other, on_true in ((s.ifTrue, s.ifFalse, True), (s.ifFalse, s.ifTrue, False)):
            add = _first_assign(side)
            plus = _binop(add.right, ("Add",)) if add is not None else None
            if plus is None:
                continue
            a, b = _strip(plus.left), _strip(plus.right)
            if not all(e.type.isIntegral and not e.type.isSigned and e.syntax is not None for e in (a, b)):
                continue
            refs = [r.symbol for e in (a, b, s.conditions[0].expr) for r in _refs(e)]
            if any(r == q for r in refs for q in blocked):
                continue
            pair, x = (_norm(p, a), _norm(p, b)), _norm(p, add.left)
            inner = []
            _walk_ifs(other, inner)
            found = [got for got in (_abs_site(p, t, pair, x) for t in inner) if got]
            if found:
                out.append((s, add, on_true, found, a, b, x))
                break
    return out


class SignMagAdd(Transform):
    name = "signmag_add"
    summary = "a sign-magnitude add (A + B on one side, |A - B| by compare and two subtracts on the other) " \
              "becomes one adder with a conditionally inverted operand"

    def options(self, d: Design) -> list[Option]:
        out = []
        for s, add, _, found, a, b, x in _sites(d):
            p = d.parsed()
            at = p.span(s.syntax)[0]
            out.append(self.option(f"offset {at}", f"the add of {p.text(a.syntax)} and {p.text(b.syntax)} into {x} "
                                   f"and its {len(found)} magnitude-of-difference branch"
                                   f"{'es' if len(found) > 1 else ''} as one adder with a conditional inversion",
                                   at=at))
        return out

    def apply(self, d: Design, o: Option) -> str:
        p = d.parsed()
        got = [t for t in _sites(d) if p.span(t[0].syntax)[0] == o.params.get("at")]
        if not got:
            raise TransformError(f"no sign-magnitude add at offset {o.params.get('at')}")
        s, add, on_true, found, a, b, x = got[0]
        wa, wb = int(a.type.bitWidth), int(b.type.bitWidth)
        w = max(wa, wb)
        ta, tb = p.text(a.syntax), p.text(b.syntax)
        sub, sm, mg = (_fresh(d.code, f"sm{p.span(s.syntax)[0]}_{n}") for n in ("sub", "s", "m"))
        cond = p.text(s.conditions[0].expr.syntax)
        ext = (lambda t, k: f"{{{w + 1 - k}'d0, {t}}}")
        member = p.span(_member(s.syntax))[0]
        ind = _indent(d.code, member)
        decl = (f"// signmag_add: {ta} + {tb}, or {ta} - {tb} with its borrow in {sm}[{w}]; {mg} the sum or |{ta} - "
                f"{tb}|\n{ind}wire {sub} = {'!' if on_true else ''}({cond});\n"
                f"{ind}wire [{w}:0] {sm} = {ext(ta, wa)} + ({ext(tb, wb)} ^ {{{w + 1}{{{sub}}}}}) + {{{w}'d0, {sub}}};\n"
                f"{ind}wire [{w - 1}:0] {mg} = ({sub} & {sm}[{w}]) ? -{sm}[{w - 1}:0] : {sm}[{w - 1}:0];\n{ind}")
        wide = int(add.left.type.bitWidth) > w
        edits = [p.span(_strip(add.right).syntax) + (sm if wide else mg,)]
        lt, zero = f"{sm}[{w}]", f"~|{sm}[{w - 1}:0]"
        a_first = re.sub(r"\s+", "", ta)
        for c, t, f in found:
            op = c.op.name if _norm(p, _strip(c.left)) == a_first else \
                {"GreaterThan": "LessThan", "LessThan": "GreaterThan", "GreaterThanEqual": "LessThanEqual",
                 "LessThanEqual": "GreaterThanEqual"}[c.op.name]          # the compare read as A op B
            new = {"LessThan": lt, "GreaterThanEqual": f"~{lt}", "GreaterThan": f"~{lt} & (|{sm}[{w - 1}:0])",
                   "LessThanEqual": f"{lt} | ({zero})"}[op]
            edits += [p.span(c.syntax) + (f"({new})",), p.span(_strip(t.right).syntax) + (mg,),
                      p.span(_strip(f.right).syntax) + (mg,)]
        return splice(d.code, edits + [(member, member, decl)])


register(SignMagAdd())
