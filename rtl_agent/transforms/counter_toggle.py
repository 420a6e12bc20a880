"""Kind `counter_toggle`: a counter's +1 / -1 update written as a toggle counter (bit k flips when every bit
below it is 1 counting up, 0 counting down), the wrap-around compares that only restate modulo-2^w arithmetic
dropped.

Recognised non-blocking updates of a whole register x (w >= 3 bits), by structure (a blocking `x = x + 1` is
left alone: inside a block or a loop its value before the statement is not the register's, which the toggle
network at module level reads):
  `x <= x + 1;`  `x <= x - 1;`
  `if (x == 2^w-1) x <= 0; else x <= x + 1;`  `if (x == 0) x <= 2^w-1; else x <= x - 1;`  (the wrap is the
      arithmetic's own, so the compare is redundant)
  `if (c) <increment> else <decrement>`  (an up/down counter: one toggle network steered by c)
The rewrite is `x <= x ^ t;` with `t = {&e[w-2:0], ..., e[0], 1'b1}` and `e = x`, `~x` or `~(x ^ {w{c}})`.

Why: Yosys maps an incrementer and a decrementer (and a mux, and two w-bit compares) where the toggle form is one
AND-prefix and XORs: RTLLM up_down_counter 1.35x by hand (bench/headroom/up_down_counter/toggle_flat.v), a
16-bit up counter 1.14x (Nangate45). Sound by arithmetic; the flow proves every rewrite anyway.
"""
from __future__ import annotations

from . import register
from .base import Design, Option, Transform, TransformError
from .procedural import NoSite, _flat, _indent, _is, _member, _strip, _sym, const
from .syntax import splice


def _one(s):
    """The single statement of s (begin/end opened), or None."""
    got = _flat(s) if s is not None else []
    return got[0] if len(got) == 1 else None


def _assign(s):
    """The assignment (blocking or not) of an expression statement, or None."""
    if s is not None and s.kind.name == "ExpressionStatement" and s.expr.kind.name == "Assignment":
        return s.expr
    return None


def _const(e):
    try:
        return const(e, {})
    except NoSite:
        return None


def _step(a):
    """(register symbol, +1 or -1, non-blocking) for `x <= x + 1` / `x = x - 1`, else None."""
    if a is None or a.isCompound:
        return None
    x, r = _sym(a.left), _strip(a.right)
    if x is None or r.kind.name != "BinaryOp" or not _is(_sym(r.left), x) or _const(r.right) != 1:
        return None
    d = {"Add": 1, "Subtract": -1}.get(r.op.name)
    return (x, d, True) if d and a.isNonBlocking else None


def _set(a, x, value) -> bool:
    return a is not None and not a.isCompound and _is(_sym(a.left), x) and _const(a.right) == value


def _counts(s):
    """(x, direction, non-blocking) when statement s is a plain or wrap-guarded +1 / -1 of x."""
    s = _one(s)
    if s is None:
        return None
    if s.kind.name == "ExpressionStatement":
        return _step(_assign(s))
    if s.kind.name != "Conditional" or len(s.conditions) != 1 or s.ifFalse is None:
        return None
    got = _step(_assign(_one(s.ifFalse)) if _one(s.ifFalse) is not None else None)
    c = _strip(s.conditions[0].expr)
    if got is None or c.kind.name != "BinaryOp" or c.op.name not in ("Equality", "CaseEquality"):
        return None
    x, d, nb = got
    k = _const(c.right) if _is(_sym(c.left), x) else _const(c.left) if _is(_sym(c.right), x) else None
    top = (1 << int(x.type.bitWidth)) - 1
    edge, wrap = (top, 0) if d == 1 else (0, top)
    t = _one(s.ifTrue)
    return got if k == edge and t is not None and _set(_assign(t), x, wrap) else None


class Site:
    def __init__(self, p, stmt, x, mode, nb, cond=None):
        self.p, self.stmt, self.x, self.mode, self.nb, self.cond = p, stmt, x, mode, nb, cond
        self.at = p.span(stmt.syntax)[0]
        self.down_when = False
        self.line = p.code.count("\n", 0, self.at) + 1

    def label(self) -> str:
        what = {"up": "increment", "down": "decrement", "updown": "up/down count"}[self.mode]
        return f"the {what} of {self.x.name} at line {self.line} as a toggle counter"

    def rewrite(self) -> str:
        p, x, w = self.p, self.x.name, int(self.x.type.bitWidth)
        name = f"ct{self.line}_{x}"
        if self.mode == "up":
            e = x
        elif self.mode == "down":
            e = f"~{x}"
        else:
            c = p.text(self.cond.syntax).strip()
            c = c if int(self.cond.type.bitWidth) == 1 else f"|({c})"
            e = f"{x} ^ {{{w}{{{c}}}}}" if self.down_when else f"~({x} ^ {{{w}{{{c}}}}})"
        bits = [f"&{name}_e[{k - 1}:0]" for k in range(w - 1, 1, -1)] + [f"{name}_e[0]", "1'b1"]
        m = p.span(_member(self.stmt.syntax))[0]
        ind = _indent(p.code, m)
        decl = (f"// counter_toggle: bit k of {x} flips when the bits below it all equal the count direction\n"
                f"{ind}wire [{w - 1}:0] {name}_e = {e};\n{ind}wire [{w - 1}:0] {name} = {{{', '.join(bits)}}};\n{ind}")
        a, b = p.span(self.stmt.syntax)
        return splice(p.code, [(m, m, decl), (a, b, f"{x} {'<=' if self.nb else '='} {x} ^ {name};")])


def sites(d: Design) -> list:
    p = d.parsed()
    found, taken = [], []
    stmts = p.ast_nodes(lambda n: n.kind.name in ("Conditional", "ExpressionStatement") and n.syntax is not None)
    for s in stmts:                     # up/down first: it covers the two counts inside it
        if s.kind.name != "Conditional" or len(s.conditions) != 1 or s.ifFalse is None:
            continue
        up, dn = _counts(s.ifTrue), _counts(s.ifFalse)
        if up and dn and _is(up[0], dn[0]) and up[2] == dn[2] and up[1] == -dn[1]:
            c = s.conditions[0].expr
            if any(_is(_sym(n), up[0]) for n in _names(c)):
                continue
            site = Site(p, s, up[0], "updown", up[2], c)
            site.down_when = up[1] == -1        # `if (c) decrement else increment`: counts up when c is low
            found.append(site)
            taken.append(p.span(s.syntax))
    for s in stmts:
        a, b = p.span(s.syntax)
        if any(x <= a and b <= y for x, y in taken):
            continue
        got = _counts(s)
        if got and int(got[0].type.bitWidth) >= 3 and not got[0].type.isSigned:
            if s.kind.name == "ExpressionStatement" and _inside_wrap(s, stmts, p):
                continue
            found.append(Site(p, s, got[0], "up" if got[1] == 1 else "down", got[2]))
            taken.append((a, b))
    return [f for f in found if int(f.x.type.bitWidth) >= 3]


def _inside_wrap(s, stmts, p) -> bool:
    """s is the else branch of a wrap-guarded count (that statement is the site, not s alone)."""
    a, b = p.span(s.syntax)
    return any(o.kind.name == "Conditional" and _counts(o) and p.span(o.syntax)[0] < a and b <= p.span(o.syntax)[1]
               for o in stmts)


def _names(e) -> list:
    out = []

    def visit(n):
        if getattr(n, "kind", None) is not None and n.kind.name == "NamedValue":
            out.append(n)
        return True
    e.visit(visit)
    return out


class CounterToggle(Transform):
    name = "counter_toggle"
    summary = "a counter's +1/-1 (wrap compares, up/down) becomes a toggle counter"

    def options(self, d: Design) -> list[Option]:
        return [self.option(f"line {s.line}", s.label(), at=s.at) for s in sites(d)]

    def apply(self, d: Design, o: Option) -> str:
        for s in sites(d):
            if s.at == o.params.get("at"):
                return s.rewrite()
        raise TransformError(f"no counter update at {o.site}")


register(CounterToggle())
