"""Kind `loop_tree`: a `for` loop that reduces N values into one variable, rebuilt as a balanced tree.

Two loop bodies are recognised, by structure:
  accumulate       `acc = acc OP e(i);` (OP: + - | ^ &, `acc OP= e(i)` too) or `if (c(i)) acc = acc OP e(i);`
  compare-select   `if (e(i) > acc) begin acc = e(i); idx = g(i); ... end` (max or min, strict or not, any
                   number of payload assignments that travel with the winner, such as its index)
The loop bounds and step must be constants (parameters fold); an unconditional `v = f(v, i)` in the body (a
second counter such as a shift amount) is evaluated per iteration too. Each iteration's operand becomes a leaf
with the loop variables replaced by their values, and the chain of N dependent steps becomes a tree of depth
log2 N: `acc = acc + ((e0 + e1) + (e2 + e3));`, or nested calls of a two-input pick function that keeps the
earlier leaf on a tie exactly when the loop does (strict compare: first winner; `>=`: last).

Why: the unrolled loop is a chain that synthesis cannot re-associate: a max-of-8 written as a loop is an
8-deep chain of compare-and-mux; as a tree it measured 7.6x (Nangate45, designs/max8). Sound by associativity
(sums modulo the accumulator's width, max/min with the tie rule above); the flow proves every rewrite anyway.
"""
from __future__ import annotations

from . import register
from .base import Design, Option, Transform, TransformError
from .datapath.reader import Unsupported
from .procedural import (NoSite, _assign, _flat, _indent, _is, _member, _refs, _strip, _sym, _syn, _values,
                         _written, const)
from .syntax import splice

_ACC_OPS = {"Add": "+", "Subtract": "+", "BinaryOr": "|", "BinaryXor": "^", "BinaryAnd": "&"}
_CMP = {"GreaterThan": (">", True), "GreaterThanEqual": (">=", True), "LessThan": ("<", False),
        "LessThanEqual": ("<=", False)}
_FLIP = {">": "<", ">=": "<=", "<": ">", "<=": ">="}


def _is_acc_assign(a) -> bool:
    """`acc = acc OP e`, `acc = e OP acc` or `acc OP= e` on a whole variable."""
    acc, r = _sym(a.left), _strip(a.right)
    if acc is None:
        return False
    return a.isCompound or (r.kind.name == "BinaryOp" and (_is(_sym(r.left), acc) or _is(_sym(r.right), acc)))


def _counters(body, var: str) -> list:
    """The unconditional assignments of the body that compute from constants, the loop variable and each
    other only (a second counter such as a shift amount): evaluated per iteration, not reduced."""
    cand = [a for a in map(_assign, body) if a is not None and _sym(a.left) is not None]
    while True:
        names = {_sym(a.left).name for a in cand} | {var}
        keep = [a for a in cand if all(n.symbol.kind.name == "Parameter" or n.symbol.name in names
                                       for n in _refs(a.right))]
        if len(keep) == len(cand):
            return keep
        cand = keep


class Loop:
    """One recognised loop: how to write its tree."""

    def __init__(self, p, f):
        self.p, self.f = p, f
        self.var, self.values = _values(f)
        body = _flat(f.body)
        writes = _written(body)
        if "\0partial" in writes:
            raise NoSite("a part-select is assigned in the loop")
        self.aux = _counters(body, self.var.name)
        red = [s for s in body if _assign(s) not in self.aux]
        if len(red) != 1:
            raise NoSite("not one reduction statement")
        self.stmt = red[0]
        self._read(red[0], writes)

    def _read(self, s, writes):
        self.cond = None
        a = _assign(s)
        if a is None and s.kind.name == "Conditional" and s.ifFalse is None and len(s.conditions) == 1:
            inner = _flat(s.ifTrue)
            c = s.conditions[0].expr
            if len(inner) == 1 and _assign(inner[0]) is not None and _is_acc_assign(_assign(inner[0])):
                a, self.cond = _assign(inner[0]), c
            else:
                return self._select(inner, c, writes)
        if a is None or not _is_acc_assign(a):
            raise NoSite("not a reduction")
        acc = _sym(a.left)
        r = _strip(a.right)
        if a.isCompound:
            op, e = a.op.name, r.right if r.kind.name == "BinaryOp" else r
        else:
            op = r.op.name
            e = r.right if _is(_sym(r.left), acc) else r.left
            if op == "Subtract" and not _is(_sym(r.left), acc):
                raise NoSite("acc = e - acc")
        if op not in _ACC_OPS or (self.cond is not None and op == "BinaryAnd"):
            raise NoSite(f"operator {op}")
        self.mode, self.acc, self.op, self.leaf = "acc", acc, op, e
        self._clean([e] + ([self.cond] if self.cond is not None else []), writes)

    def _select(self, inner, c, writes):
        c = _strip(c)
        if c.kind.name != "BinaryOp" or c.op.name not in _CMP:
            raise NoSite("not a compare")
        assigns = [_assign(x) for x in inner]
        if not assigns or None in assigns or any(_sym(a.left) is None for a in assigns):
            raise NoSite("select body")
        rel, _ = _CMP[c.op.name]
        for a in assigns:
            acc = _sym(a.left)
            if _is(_sym(c.right), acc) and self._same(c.left, a.right):
                break
            if _is(_sym(c.left), acc) and self._same(c.right, a.right):
                rel = _FLIP[rel]
                break
        else:
            raise NoSite("the compared value is not the one stored")
        e = _strip(a.right)
        if bool(e.type.isSigned) != bool(acc.type.isSigned) or int(e.type.bitWidth) > int(acc.type.bitWidth) \
                or int(_strip(c.left).type.bitWidth) > int(acc.type.bitWidth):
            raise NoSite("compare width or sign")
        pay = [x for x in assigns if x is not a]
        if len({_sym(x.left).name for x in pay} | {acc.name}) != len(pay) + 1:
            raise NoSite("a payload assigned twice")
        # `e > acc`: the new leaf wins when greater (max, first winner kept on a tie); `>=`: the later one wins
        self.mode, self.acc, self.rel, self.leaf, self.payload = "select", acc, rel, e, pay
        self._clean([e] + [x.right for x in pay] + [c.left if _is(_sym(c.right), acc) else c.right], writes)

    def _same(self, x, y) -> bool:
        return "".join(self.p.text(_syn(x)).split()) == "".join(self.p.text(_syn(y)).split())

    def _clean(self, exprs, writes):
        """No leaf may read what the loop writes (other than the loop's own counters, replaced by values)."""
        aux = {_sym(a.left).name for a in self.aux}
        for e in exprs:
            for n in _refs(e):
                name = n.symbol.name
                if name == self.var.name or name in aux:
                    continue
                if name in writes:
                    raise NoSite(f"the operand reads {name}, which the loop writes")

    def _aux_start(self) -> dict:
        """Each counter's value before the loop: a constant assignment earlier in the same statement list."""
        env = {}
        names = {_sym(a.left).name for a in self.aux}
        assigned = self.p.ast_nodes(lambda n: n.kind.name == "Assignment" and n.syntax is not None)
        a0 = self.p.span(self.f.syntax)[0]
        m0 = self.p.span(_member(self.f.syntax))[0]
        for name in names:
            before = [a for a in assigned if _sym(a.left) is not None and _sym(a.left).name == name
                      and m0 <= self.p.span(a.syntax)[0] and self.p.span(a.syntax)[1] <= a0]
            if before:
                try:
                    env[name] = const(before[-1].right, {})
                except NoSite:
                    pass
        return env

    def unroll(self) -> tuple:
        """([leaf text per iteration], {counter: final value})."""
        env = self._aux_start()
        widths = {_sym(a.left).name: int(_sym(a.left).type.bitWidth) for a in self.aux}
        leaves = []
        for v in self.values:
            env[self.var.name] = v
            for s in _flat(self.f.body):
                if s is self.stmt:
                    leaves.append(self._leaf_text(env, widths))
                else:
                    a = _assign(s)
                    name = _sym(a.left).name
                    env[name] = const(a.right, env) & ((1 << widths[name]) - 1)
        return leaves, {n: env[n] for n in widths}

    def _text(self, e, env, widths) -> str:
        """The source of e with the loop variables written as their values."""
        syn = _syn(e)
        a, b = self.p.span(syn)
        edits = []
        for n in _refs(e):
            name = n.symbol.name
            if name in env and n.syntax is not None:
                x, y = self.p.span(n.syntax)
                val = env[name]
                edits.append((x - a, y - a, f"{widths[name]}'d{val}" if name in widths else
                              str(val) if val >= 0 else f"({val})"))
        text = splice(self.p.code[a:b], sorted(set(edits)))
        return text if _wrapped(text) or text.replace("_", "").isalnum() else f"({text})"

    def _leaf_text(self, env, widths) -> str:
        if self.mode == "acc":
            e = self._text(self.leaf, env, widths)
            return f"({self._text(self.cond, env, widths)} ? {e} : 1'sb0)" if self.cond is not None else e
        args = [self._text(self.leaf, env, widths)] + [self._text(x.right, env, widths) for x in self.payload]
        return f"{self._fname('leaf')}({', '.join(args)})"

    def _fname(self, what) -> str:
        return f"lt{self.line}_{what}"

    @property
    def line(self) -> int:
        return self.p.code.count("\n", 0, self.p.span(self.f.syntax)[0]) + 1

    def label(self) -> str:
        n = len(self.values)
        if self.mode == "acc":
            what = f"{_ACC_OPS[self.op] if self.op != 'Subtract' else '-'} into {self.acc.name}"
        else:
            kind = "max" if self.rel in (">", ">=") else "min"
            what = f"{kind} into {self.acc.name}" + "".join(f", {x.left.symbol.name}" for x in self.payload)
        return f"the for loop at line {self.line} ({n} steps, {what}) as a balanced tree"

    def rewrite(self) -> tuple:
        """(new statement text, function declarations text)."""
        leaves, finals = self.unroll()
        acc = self.acc.name
        widths = {_sym(a.left).name: int(_sym(a.left).type.bitWidth) for a in self.aux}
        post = "".join(f" {n} = {widths[n]}'d{v};" for n, v in finals.items())
        if self.mode == "acc":
            op = _ACC_OPS[self.op]
            stmt = f"{acc} = {acc} {'-' if self.op == 'Subtract' else op} {_tree(leaves, lambda l, r: f'({l} {op} {r})')};"
            return stmt + post, ""
        w = int(self.acc.type.bitWidth)
        sign = "signed " if self.acc.type.isSigned else ""
        pws = [int(x.left.symbol.type.bitWidth) for x in self.payload]
        rec = w + sum(pws)
        names = [x.left.symbol.name for x in self.payload]
        pick, leaf = self._fname("pick"), self._fname("leaf")
        lo = f"$signed(l[{w - 1}:0])" if sign else f"l[{w - 1}:0]"
        ro = f"$signed(r[{w - 1}:0])" if sign else f"r[{w - 1}:0]"
        ins = "".join(f", input [{pw - 1}:0] p{k}" for k, pw in enumerate(pws))
        cat = "{" + ", ".join([f"p{k}" for k in reversed(range(len(pws)))] + ["v"]) + "}"
        funcs = (f"function [{rec - 1}:0] {leaf}(input {sign}[{w - 1}:0] v{ins});\n"
                 f"    {leaf} = {cat};\nendfunction\n"
                 f"function [{rec - 1}:0] {pick}(input [{rec - 1}:0] l, input [{rec - 1}:0] r);\n"
                 f"    {pick} = ({ro} {self.rel} {lo}) ? r : l;\nendfunction\n")
        now = "{" + ", ".join(list(reversed(names)) + [acc]) + "}"
        stmt = f"{now} = {pick}({now}, {_tree(leaves, lambda l, r: f'{pick}({l}, {r})')});"
        return stmt + post, funcs


def _wrapped(t: str) -> bool:
    """t is one parenthesised expression: `(a + b)`, not `(a) + (b)`."""
    if not (t.startswith("(") and t.endswith(")")):
        return False
    depth = 0
    for k, ch in enumerate(t):
        depth += (ch == "(") - (ch == ")")
        if depth == 0 and k < len(t) - 1:
            return False
    return True


def _tree(leaves, join) -> str:
    if len(leaves) == 1:
        return leaves[0]
    h = (len(leaves) + 1) // 2
    return join(_tree(leaves[:h], join), _tree(leaves[h:], join))


def loops(d: Design) -> list:
    p = d.parsed()
    out = []
    for f in p.ast_nodes(lambda n: n.kind.name == "ForLoop" and n.syntax is not None):
        try:
            lp = Loop(p, f)
            if len(lp.values) >= 3:
                lp.unroll()
                out.append(lp)
        except (NoSite, Unsupported, AttributeError):
            continue
    return out


class LoopTree(Transform):
    name = "loop_tree"
    summary = "a for loop that accumulates or compares-and-selects N values becomes a balanced tree"

    def options(self, d: Design) -> list[Option]:
        return [self.option(f"line {lp.line}", lp.label(), at=lp.p.span(lp.f.syntax)[0]) for lp in loops(d)]

    def apply(self, d: Design, o: Option) -> str:
        for lp in loops(d):
            a, b = lp.p.span(lp.f.syntax)
            if a == o.params.get("at"):
                stmt, funcs = lp.rewrite()
                edits = [(a, b, f"// loop_tree: {len(lp.values)} steps as a tree\n{_indent(d.code, a)}{stmt}")]
                if funcs:
                    m = lp.p.span(_member(lp.f.syntax))[0]
                    ind = _indent(d.code, m)
                    edits.append((m, m, "".join(f"{x}\n{ind}" for x in funcs.rstrip("\n").split("\n"))))
                return splice(d.code, edits)
        raise TransformError(f"no reduction loop at {o.site}")


register(LoopTree())
