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
from .procedural import NoSite, _flat, _indent, _is, _member, _refs, _strip, _sym, const
from .syntax import splice

MOD_BITS = 8            # a mod-(K+1) counter's toggles are minimised over its 2^w values: small registers only


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
    """(x, direction, non-blocking, modulus - 1 or None) when statement s is a plain or wrap-guarded +1 / -1
    of x, or a count to K and back to 0 (a mod-(K+1) counter, K below the top and x at most MOD_BITS wide)."""
    s = _one(s)
    if s is None:
        return None
    if s.kind.name == "ExpressionStatement":
        got = _step(_assign(s))
        return got + (None,) if got else None
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
    if t is None or k is None or not _set(_assign(t), x, wrap if k == edge else 0):
        return None
    if k == edge:
        return got + (None,)
    return got + (k,) if d == 1 and 0 < k < top and int(x.type.bitWidth) <= MOD_BITS else None


class Site:
    def __init__(self, p, stmt, x, mode, nb, cond=None, mod=None):
        self.p, self.stmt, self.x, self.mode, self.nb, self.cond, self.mod = p, stmt, x, mode, nb, cond, mod
        self.at = p.span(stmt.syntax)[0]
        self.down_when = False
        self.gate = None                # `if (en) <this count>` (else holds): the enable can be folded in
        self.line = p.code.count("\n", 0, self.at) + 1

    def label(self, merged=False) -> str:
        what = {"up": "increment", "down": "decrement", "updown": "up/down count",
                "mod": f"count to {self.mod} and back to 0"}[self.mode]
        tail = f" (values above {self.mod} unreachable)" if self.mode == "mod" else ""
        fold = ", its enable folded into the toggles" if merged else ""
        return f"the {what} of {self.x.name} at line {self.line} as a toggle counter{tail}{fold}"

    def rewrite(self, merged=False) -> str:
        p, x, w = self.p, self.x.name, int(self.x.type.bitWidth)
        name = f"ct{self.line}_{x}"
        m = p.span(_member(self.stmt.syntax))[0]
        ind = _indent(p.code, m)
        if self.mode == "mod":
            bits = [_sop(x, w, [k for k in range(self.mod + 1) if ((k ^ (0 if k == self.mod else k + 1)) >> b) & 1],
                         range(self.mod + 1, 1 << w)) for b in reversed(range(w))]
            decl = (f"// counter_toggle: the bits of {x} that flip on each count; its values above {self.mod} "
                    f"never occur\n{ind}wire [{w - 1}:0] {name} = {{{', '.join(bits)}}};\n{ind}")
            return self._splice(m, decl, name, merged)
        if self.mode == "up":
            e = x
        elif self.mode == "down":
            e = f"~{x}"
        else:
            c = p.text(self.cond.syntax).strip()
            c = c if int(self.cond.type.bitWidth) == 1 else f"|({c})"
            e = f"{x} ^ {{{w}{{{c}}}}}" if self.down_when else f"~({x} ^ {{{w}{{{c}}}}})"
        bits = [f"&{name}_e[{k - 1}:0]" for k in range(w - 1, 1, -1)] + [f"{name}_e[0]", "1'b1"]
        decl = (f"// counter_toggle: bit k of {x} flips when the bits below it all equal the count direction\n"
                f"{ind}wire [{w - 1}:0] {name}_e = {e};\n{ind}wire [{w - 1}:0] {name} = {{{', '.join(bits)}}};\n{ind}")
        return self._splice(m, decl, name, merged)

    def _splice(self, m, decl, name, merged) -> str:
        p, x, w = self.p, self.x.name, int(self.x.type.bitWidth)
        if merged:                      # `if (en) count` -> one update whose toggles are masked by en
            a, b = p.span(self.gate.syntax)
            c = p.text(self.gate.conditions[0].expr.syntax).strip()
            c = c if int(self.gate.conditions[0].expr.type.bitWidth) == 1 else f"|({c})"
            return splice(p.code, [(m, m, decl), (a, b, f"{x} <= {x} ^ ({{{w}{{{c}}}}} & {name});")])
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
        if up and dn and up[3] is None and dn[3] is None and _is(up[0], dn[0]) and up[2] == dn[2] and up[1] == -dn[1]:
            c = s.conditions[0].expr
            if any(_is(_sym(n), up[0]) for n in _refs(c)):
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
            r = d.ranges.get(got[0].name)
            if got[3] is not None and r is not None and r.hi > got[3]:
                continue                # observed above K: not a mod-(K+1) counter
            mode = "mod" if got[3] is not None else "up" if got[1] == 1 else "down"
            found.append(Site(p, s, got[0], mode, got[2], mod=got[3]))
            taken.append((a, b))
    found = [f for f in found if int(f.x.type.bitWidth) >= 3]
    for f in found:
        f.gate = _gate(f, stmts, p)
    return found


def _gate(site, stmts, p):
    """The `if (en) <site>` (no else, or an else that holds) the site is the whole true branch of, or None."""
    span = p.span(site.stmt.syntax)
    for o in stmts:
        if o.kind.name != "Conditional" or len(o.conditions) != 1 or _one(o.ifTrue) is None:
            continue
        if p.span(_one(o.ifTrue).syntax) != span:
            continue
        f = _one(o.ifFalse) if o.ifFalse is not None else None
        hold = f is not None and _assign(f) is not None and _is(_sym(_assign(f).left), site.x) \
            and _is(_sym(_assign(f).right), site.x)
        if (o.ifFalse is None or hold) and site.nb and \
                not any(_is(_sym(n), site.x) for n in _refs(o.conditions[0].expr)):
            return o
    return None


def _sop(x: str, w: int, on: list, dc) -> str:
    """A small sum of products of x's bits that is 1 on `on`, 0 off `on` and `dc` (Quine-McCluskey primes, then
    a greedy cover): a mod counter's toggle bit with its unreachable values as don't-cares."""
    if not on:
        return "1'b0"
    cubes = {(v, 0) for v in set(on) | set(dc)}            # (value, mask of free bits)
    primes = set()
    while cubes:
        merged, nxt = set(), set()
        for v, m in cubes:
            for b in range(w):
                if not (m >> b) & 1 and (v ^ (1 << b), m) in cubes:
                    nxt.add((v & ~(1 << b), m | (1 << b)))
                    merged |= {(v, m), (v ^ (1 << b), m)}
        primes |= cubes - merged
        cubes = nxt
    left, terms = set(on), []
    while left:
        best = max(sorted(primes), key=lambda c: (len([v for v in left if v & ~c[1] == c[0]]), bin(c[1]).count("1")))
        terms.append(best)
        left = {v for v in left if v & ~best[1] != best[0]}
    out = []
    for v, m in terms:
        lits = [f"{'' if (v >> b) & 1 else '~'}{x}[{b}]" for b in reversed(range(w)) if not (m >> b) & 1]
        out.append(" & ".join(lits) if lits else "1'b1")
    return "(" + " | ".join(f"({t})" if " " in t else t for t in out) + ")" if len(out) > 1 else out[0]


def _inside_wrap(s, stmts, p) -> bool:
    """s is the else branch of a wrap-guarded count (that statement is the site, not s alone)."""
    a, b = p.span(s.syntax)
    return any(o.kind.name == "Conditional" and _counts(o) and p.span(o.syntax)[0] < a and b <= p.span(o.syntax)[1]
               for o in stmts)


class CounterToggle(Transform):
    name = "counter_toggle"
    summary = "a counter's +1/-1 (wrap compares, up/down) becomes a toggle counter"

    def options(self, d: Design) -> list[Option]:
        out = []
        for s in sites(d):
            out.append(self.option(f"line {s.line}", s.label(), at=s.at))
            if s.gate is not None:
                out.append(self.option(f"line {s.line} enable", s.label(True), at=s.at, merged=True))
        return out

    def apply(self, d: Design, o: Option) -> str:
        for s in sites(d):
            if s.at == o.params.get("at"):
                if o.params.get("merged") and s.gate is None:
                    raise TransformError(f"the count at {o.site} has no enable to fold in")
                return s.rewrite(bool(o.params.get("merged")))
        raise TransformError(f"no counter update at {o.site}")


register(CounterToggle())
