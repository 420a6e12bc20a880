"""Re-encode a finite-state machine: binary (minimal width), one-hot, Gray, or a shifted one-hot as a counter.

An FSM here is a group of variables (the state register and the next-state variables it is loaded from) that is
clean: every value a member is assigned is a constant (a parameter/localparam or a literal) or another member
(through `?:` arms), and every read of a member is a case selector whose items are such constants, a `==`/`!=`
against one, or a value copied into another member. Then the codes can change freely: the constants' values (and
literals in place) and the members' widths are rewritten, and for one-hot the comparisons may become bit tests
(`state == S` -> `state[i]`, `case (state) S:` -> `case (1'b1) state[i]:`). A register with arithmetic, bit
selects, a port or a constant shared with other logic is not clean and gets no option. Codes are numbered in
the order of the old values (the reset state is usually the smallest). The flow proves the result or rejects it:
the new codes differ from the old ones in states unreachable from reset, which only a sequential proof closes.

A fourth encoding, `counter`, is for a different shape (fsm_shift.py): a one-hot register advanced by shifting
(`state <= state << 1`, read as `state[k]`) becomes a binary counter.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field

from . import register
from .base import Design, Option, Transform, TransformError
from .fsm_common import ASSIGN, Scan, clocked, leaves, literal_value, nodes, target, unparen, up
from .fsm_shift import find_shift_regs, to_counter
from .syntax import splice, walk

ENCODINGS = ("binary", "onehot", "gray")
_CMP = {"EqualityExpression": "==", "InequalityExpression": "!=", "CaseEqualityExpression": "==",
        "CaseInequalityExpression": "!="}


@dataclass
class Fsm:
    members: list                       # variable names, the clocked register first
    width: int
    values: list                        # the distinct codes, ascending (index = new code number)
    consts: dict = field(default_factory=dict)   # param name -> value
    literals: list = field(default_factory=list)  # (start, end, value) of literal codes in the text
    selectors: list = field(default_factory=list)  # CaseStatement nodes on a member (for one-hot bit tests)
    compares: list = field(default_factory=list)   # (node, member text, const value, op)


def codes(encoding: str, n: int) -> tuple[int, list]:
    """(width, [code of state i]) of an encoding of n states."""
    if encoding == "onehot":
        return n, [1 << i for i in range(n)]
    w = max(1, (n - 1).bit_length())
    if encoding == "gray":
        return w, [i ^ (i >> 1) for i in range(n)]
    return w, list(range(n))


class _Group:
    """Checks one group of variables and collects what a re-encoding rewrites."""

    def __init__(self, scan, group):
        self.scan, self.group, self.p = scan, set(group), scan.p
        self.fsm = Fsm(members=[], width=0, values=[])
        self.accepted, self.values, self.clocked = set(), set(), []

    def code(self, node) -> bool:
        c = self.scan.const(node)
        if c is None:
            return False
        node = unparen(node)
        self.accepted.add(self.p.span(node))
        self.values.add(c)
        if node.kind.name == "IdentifierName":
            self.fsm.consts[node.identifier.valueText] = c
        else:
            self.fsm.literals.append((*self.p.span(node), c))
        return True

    def use(self, m, n) -> bool:
        if n.kind.name != "IdentifierName":
            return False                    # a bit or part select reads the code itself
        child, par = up(n)
        k = par.kind.name if par is not None else ""
        if k in ASSIGN and child is par.left:
            if clocked(par) and m not in self.clocked:
                self.clocked.append(m)
            return all((leaf.kind.name == "IdentifierName" and leaf.identifier.valueText in self.group)
                       or self.code(leaf) for leaf in leaves(par.right))
        if k == "CaseStatement" and child is par.expr:
            if par.caseKeyword.valueText != "case":
                return False
            for item in nodes(par.items):
                if item.kind.name == "StandardCaseItem":
                    if not all(self.code(e) for e in nodes(item.expressions)):
                        return False
                elif item.kind.name != "DefaultCaseItem":
                    return False
            self.fsm.selectors.append(par)
            return True
        if k in _CMP:
            other = par.right if child is par.left else par.left
            if not self.code(other):
                return False
            self.fsm.compares.append((par, m, self.scan.const(other), _CMP[k]))
            return True
        if k in ("SignalEventExpression", "EventControl"):
            return True
        t = target(self.p, n)
        return t is not None and t[1] in self.group

    def check(self) -> Fsm | None:
        widths = {self.p.width(m) for m in self.group}
        if len(widths) != 1 or None in widths:
            return None
        for m in sorted(self.group):
            if not all(self.use(m, n) for n in self.scan.uses.get(m, [])):
                return None
        for name in self.fsm.consts:       # a constant that other logic reads would change its meaning
            if any(self.p.span(n) not in self.accepted for n in self.scan.uses.get(name, [])):
                return None
        if not self.clocked or len(self.values) < 2:
            return None
        self.fsm.members = self.clocked + sorted(self.group - set(self.clocked))
        self.fsm.width, self.fsm.values = widths.pop(), sorted(self.values)
        return self.fsm


def find_fsms(p) -> list[Fsm]:
    """Every clean FSM of the parsed top module (see the module's docstring)."""
    scan = Scan(p)
    parent = {v: v for v in scan.variables}

    def root(v):
        while parent[v] != v:
            v = parent[v]
        return v
    for v in scan.variables:
        for n in scan.uses.get(v, []):
            t = target(p, n)
            if t is not None and t[1] in parent:
                parent[root(v)] = root(t[1])
    groups: dict[str, set] = {}
    for v in scan.variables:
        groups.setdefault(root(v), set()).add(v)
    found = [_Group(scan, g).check() for _, g in sorted(groups.items())]
    return [f for f in found if f is not None]


def _lit(width: int, value: int, encoding: str) -> str:
    return f"{width}'d{value}" if encoding == "binary" else f"{width}'b{value:0{width}b}"


def _range(type_text: str, width: int) -> str:
    new = f"[{width - 1}:0]"
    if "[" in type_text:
        return re.sub(r"\[[^\]]*\]", new, type_text, count=1)
    return f"{type_text} {new}".strip()


def _declarations(p, fsm, width, consts_new, encoding):
    """Edits of the members' and constants' declarations."""
    edits, members = [], set(fsm.members)
    for n in walk(p.module):
        k = n.kind.name
        if k == "DataDeclaration":
            decls = nodes(n.declarators)
            mine = [d for d in decls if d.name.valueText in members]
            if not mine:
                continue
            tt = p.text(n.type)
            if not re.match(r"(reg|logic|bit)\b", tt):
                raise TransformError(f"state variable of type {tt!r}")
            if len(mine) == len(decls):
                edits.append((*p.span(n.type), _range(tt, width)))
            else:
                rest = ", ".join(p.text(d) for d in decls if d.name.valueText not in members)
                ours = ", ".join(p.text(d) for d in mine)
                if any(d.initializer is not None for d in mine):
                    raise TransformError("a state variable with an initializer")
                edits.append((*p.span(n), f"{_range(tt, width)} {ours}; {tt} {rest};"))
        elif k == "ParameterDeclaration":
            decls = nodes(n.declarators)
            mine = [d for d in decls if d.name.valueText in consts_new]
            if not mine:
                continue
            for d in mine:
                edits.append((*p.span(d.initializer.expr), _lit(width, consts_new[d.name.valueText], encoding)))
            tt = p.text(n.type) if n.type is not None else ""
            if "[" in tt:
                if len(mine) != len(decls):
                    raise TransformError("a ranged parameter declaration shared with other constants")
                edits.append((*p.span(n.type), _range(tt, width)))
    return edits


def rewrite(p, fsm: Fsm, encoding: str, bit_tests: bool = False) -> str:
    """The design with fsm re-encoded."""
    width, cs = codes(encoding, len(fsm.values))
    new = dict(zip(fsm.values, cs))
    consts_new = {name: new[v] for name, v in fsm.consts.items()}
    edits = {(a, b): t for a, b, t in _declarations(p, fsm, width, consts_new, encoding)}
    for a, b, v in fsm.literals:
        edits[(a, b)] = _lit(width, new[v], encoding)
    if bit_tests and encoding == "onehot":
        for node, m, v, op in fsm.compares:
            edits[p.span(node)] = f"{'!' if op == '!=' else ''}{m}[{cs.index(new[v])}]"
        for case in fsm.selectors:
            m = unparen(case.expr).identifier.valueText
            edits[p.span(case.expr)] = "1'b1"
            for item in nodes(case.items):
                if item.kind.name == "StandardCaseItem":
                    for e in nodes(item.expressions):
                        edits[p.span(e)] = f"{m}[{cs.index(new[_value(p, fsm, e)])}]"
    spans = sorted(edits)
    kept = [s for s in spans if not any(o != s and o[0] <= s[0] and s[1] <= o[1] for o in spans)]
    return splice(p.code, [(a, b, edits[(a, b)]) for a, b in kept])


def _value(p, fsm, e) -> int:
    e = unparen(e)
    if e.kind.name == "IdentifierName":
        return fsm.consts[e.identifier.valueText]
    return literal_value(p.text(e))


def current(fsm: Fsm) -> str | None:
    for enc in ENCODINGS:
        if codes(enc, len(fsm.values)) == (fsm.width, fsm.values):
            return enc
    return None


class FsmEncode(Transform):
    name = "fsm_encode"
    summary = "re-encode a clean FSM's state register: binary, one-hot or Gray"

    def options(self, d: Design) -> list[Option]:
        out, p = [], d.parsed()
        for fsm in find_fsms(p):
            site, n, cur = fsm.members[0], len(fsm.values), current(fsm)
            for enc in ENCODINGS:
                w, cs = codes(enc, n)
                same = (w, cs) == (fsm.width, fsm.values)
                if enc == "gray" and n <= 2:
                    continue
                if not same:
                    out.append(self.option(site, f"{site}: re-encode the {n}-state FSM ({cur or 'custom'} codes, "
                                                 f"{fsm.width} bits) as {enc}", encoding=enc, bit_tests=False))
                if enc == "onehot" and (fsm.compares or fsm.selectors):   # also for one that is one-hot already
                    out.append(self.option(site, f"{site}: re-encode the {n}-state FSM as one-hot with bit "
                                                 f"tests ({site} == S -> {site}[i])", encoding=enc, bit_tests=True))
        for sr in find_shift_regs(p, Scan(p)):
            out.append(self.option(sr.name, f"{sr.name}: the {sr.bits}-bit one-hot register advanced by shifting "
                                            f"becomes a binary counter", encoding="counter"))
        return out

    def apply(self, d: Design, o: Option) -> str:
        p = d.parsed()
        if o.params.get("encoding") == "counter":
            sr = next((s for s in find_shift_regs(p, Scan(p)) if s.name == o.site), None)
            if sr is None:
                raise TransformError(f"no shifted one-hot register {o.site!r}")
            return to_counter(p, sr)
        fsm = next((f for f in find_fsms(p) if f.members[0] == o.site), None)
        if fsm is None:
            raise TransformError(f"no clean FSM on {o.site!r}")
        enc = o.params.get("encoding")
        if enc not in ENCODINGS:
            raise TransformError(f"unknown encoding {enc!r}")
        return rewrite(p, fsm, enc, bool(o.params.get("bit_tests")))


register(FsmEncode())
