"""Remove idle state: the reset or the hold (enable) of a register whose effect no output can observe.

A data register reset to 0 whose value reaches the outputs only through a valid-gated path, or one that holds
its value in cycles where nothing reads it, pays for a reset flop or an enable mux that buys nothing. Yosys
keeps them: that they are unobservable follows from reachable states and from the spec's don't-cares (the
task's `observe:` rules), which synthesis cannot know and the flow's proof can.

For each register assigned in a clocked always block, the options are:
    no_reset           the register moves to a block of its own on the clock edge only, without its reset
    no_hold            every `if` in its update that leaves it unassigned on one branch takes the other branch
                       unconditionally (`if (en) r <= d;` -> `r <= d;`, explicit `r <= r;` holds go too)
    no_reset_no_hold   both
    no_gate            an update that selects zero or a value (`r <= en ? d : 0`) loads the value (`r <= d`)
    no_reset_no_gate   both
The register's statements are sliced out of the block (its if/case structure kept, other registers' assignments
dropped) and the rest of the block keeps everything else. Blocks with blocking assignments are left alone.
Most options are wrong for a given register; the proof decides which are not. A register no output reads
(live.py) gets none: synthesis removes it anyway, so its options would measure only noise.
"""
from __future__ import annotations

import re

from . import register
from .base import Design, Option, Transform, TransformError
from .live import live
from .syntax import splice, syntax, walk

MODES = ("no_reset", "no_hold", "no_reset_no_hold", "no_gate", "no_reset_no_gate")
_RESET_NAME = re.compile(r"(rst|reset|clr|clear)", re.I)


def _indent(text: str) -> str:
    return "\n".join("  " + ln if ln else ln for ln in text.split("\n"))


def _nodes(lst):
    return [d for d in lst if isinstance(d, syntax.SyntaxNode)]


def _unparen(n):
    while n.kind.name == "ParenthesizedExpression":
        n = n.expression
    return n


def _roots(lhs) -> list[str]:
    lhs = _unparen(lhs)
    k = lhs.kind.name
    if k in ("IdentifierName", "IdentifierSelectName"):
        return [lhs.identifier.valueText]
    if k in ("ElementSelectExpression", "RangeSelectExpression") or k.endswith("SelectExpression"):
        return _roots(lhs.left)
    if k == "ConcatenationExpression":
        return [r for e in _nodes(lhs.expressions) for r in _roots(e)]
    raise TransformError(f"unsupported assignment target {k}")


def _assigned(p, stmt) -> set:
    """Every register a statement assigns (nonblocking); blocking assignments refuse the block."""
    out = set()
    for n in walk(stmt):
        if n.kind.name == "NonblockingAssignmentExpression":
            out.update(_roots(n.left))
        elif n.kind.name == "AssignmentExpression" and n.parent.kind.name == "ExpressionStatement":
            raise TransformError("a blocking assignment in a clocked block")
    return out


def _zero(n) -> bool:
    t = n.kind.name in ("IntegerVectorExpression", "IntegerLiteralExpression") and str(n).strip()
    return bool(t) and re.fullmatch(r"(\d*\s*'\s*[sS]?[bBoOdDhH]\s*)?[0_]+", t) is not None


def _ungated(rhs):
    """The value of a `c ? v : 0` / `c ? 0 : v` update, else None."""
    rhs = _unparen(rhs)
    if rhs.kind.name != "ConditionalExpression":
        return None
    a, b = _unparen(rhs.left), _unparen(rhs.right)
    return a if _zero(b) else b if _zero(a) else None


class _Slicer:
    """The text of a statement restricted to the assignments of the registers `keep` accepts."""

    def __init__(self, p, keep, no_hold=False, no_gate=False):
        self.p, self.keep, self.no_hold, self.no_gate = p, keep, no_hold, no_gate

    def __call__(self, s) -> str | None:
        k, p = s.kind.name, self.p
        if k == "SequentialBlockStatement":
            if s.blockName is not None or any(i.kind.name.endswith("Declaration") for i in _nodes(s.items)):
                raise TransformError("a named block or a declaration in a block")
            parts = [x for x in (self(i) for i in _nodes(s.items)) if x is not None]
            if not parts:
                return None
            return "begin\n" + _indent("\n".join(parts)) + "\nend"
        if k == "ConditionalStatement":
            return self.conditional(s)
        if k == "CaseStatement":
            return self.case(s)
        if k == "ExpressionStatement" and s.expr.kind.name == "NonblockingAssignmentExpression":
            roots = _roots(s.expr.left)
            mine = [self.keep(r) for r in roots]
            if any(mine) and not all(mine):
                raise TransformError("a concatenated target mixing registers")
            if not any(mine) or (self.no_hold and p.text(s.expr.left).strip() == p.text(s.expr.right).strip()):
                return None
            kept = _ungated(s.expr.right) if self.no_gate else None
            return p.text(s) if kept is None else f"{p.text(s.expr.left)} <= {p.text(kept)};"
        if k == "ForLoopStatement":
            regs = _assigned(p, s.statement)
            mine = [self.keep(r) for r in regs]
            if any(mine) and not all(mine):
                raise TransformError("a loop assigning several registers")
            return p.text(s) if regs and all(mine) else None
        if k in ("EmptyStatement", "ExpressionStatement"):
            return None             # `;`, a system task: nothing a register needs
        raise TransformError(f"unsupported statement {k}")

    def conditional(self, s) -> str | None:
        p = self.p
        a = self(s.statement)
        b = self(s.elseClause.clause) if s.elseClause is not None else None
        if a is None and b is None:
            return None
        if self.no_hold and (a is None or b is None):
            return a if b is None else b
        head = p.code[p.span(s)[0]:p.span(s.statement)[0]]
        if b is None:
            return head + a
        return head + (a or ";") + "\nelse " + b

    def case(self, s) -> str | None:
        p = self.p
        items = _nodes(s.items)
        parts = []
        for it in items:
            body = self(it.clause)
            label = p.code[p.span(it)[0]:p.span(it.clause)[0]]
            parts.append((label, body))
        if all(b is None for _, b in parts):
            return None
        head = p.code[p.span(s)[0]:p.span(items[0])[0]]
        return head + "\n".join(lbl + (b or ";") for lbl, b in parts) + "\nendcase"


class _Block:
    """A clocked always block: its events, its reset `if` (when it has one) and its registers."""

    def __init__(self, p, node):
        self.p, self.node = p, node
        tcs = node.statement
        if tcs.kind.name != "TimingControlStatement":
            raise TransformError("not a clocked block")
        self.events = [e for e in walk(tcs.timingControl) if e.kind.name == "SignalEventExpression"]
        if not self.events or any(e.edge.valueText not in ("posedge", "negedge") for e in self.events):
            raise TransformError("not an edge-triggered block")
        self.body = tcs.statement
        top = self.body
        while top.kind.name == "SequentialBlockStatement" and len(_nodes(top.items)) == 1:
            top = _nodes(top.items)[0]
        self.reset, self.rest, self.top = None, self.body, top
        if top.kind.name == "ConditionalStatement":
            names = {n.identifier.valueText for n in walk(top.predicate) if n.kind.name == "IdentifierName"}
            edges = {p.text(e.expr).strip() for e in self.events}
            if len(names) == 1 and (names & edges or _RESET_NAME.search(next(iter(names)))):
                self.reset = next(iter(names))
                self.rest = top.elseClause.clause if top.elseClause is not None else None
        clocks = [e for e in self.events if p.text(e.expr).strip() != self.reset]
        if len(clocks) != 1:
            raise TransformError("no single clock edge")
        self.clock = p.text(clocks[0])
        self.regs = _assigned(p, self.body)

    def header(self, with_reset: bool) -> str:
        p = self.p
        if with_reset:
            return p.code[p.span(self.node)[0]:p.span(self.body)[0]]
        return f"always @({self.clock}) "


def blocks(p) -> list[_Block]:
    out = []
    for n in walk(p.module):
        if n.kind.name in ("AlwaysBlock", "AlwaysFFBlock"):
            try:
                out.append(_Block(p, n))
            except TransformError:
                continue
    return out


def rewrite(p, reg: str, mode: str) -> str:
    b = next((b for b in blocks(p) if reg in b.regs), None)
    if b is None:
        raise TransformError(f"{reg!r} is not a register of a clocked block this kind reads")
    if mode not in MODES:
        raise TransformError(f"unknown mode {mode!r}")
    drop_reset, no_hold, no_gate = mode.startswith("no_reset"), mode.endswith("no_hold"), mode.endswith("no_gate")
    if drop_reset and b.reset is None:
        raise TransformError(f"{reg!r} has no reset")
    keep = lambda r: r == reg  # noqa: E731
    if b.reset is not None and not drop_reset:     # the reset `if` stays whole: only the update loses holds
        at_reset = _Slicer(p, keep)(b.top.statement)
        if at_reset is None:
            raise TransformError(f"{reg!r} has no reset to keep")
        update = _Slicer(p, keep, no_hold, no_gate)(b.rest)
        head = p.code[p.span(b.top)[0]:p.span(b.top.statement)[0]]
        mine = None if update is None else f"{head}{at_reset}\nelse {update}"
    else:
        mine = _Slicer(p, keep, no_hold, no_gate)(b.rest if drop_reset else b.body)
    if mine is None:
        raise TransformError(f"{reg!r} is only assigned in its reset")
    ours = b.header(not drop_reset) + mine
    others = _Slicer(p, lambda r: r != reg)(b.body)
    a, e = p.span(b.node)
    col = a - (p.code.rfind("\n", 0, a) + 1)
    ours = ours.replace("\n", "\n" + " " * col)
    new = ours if others is None else b.header(True) + others.replace("\n", "\n" + " " * col) + "\n\n" + \
        " " * col + ours
    return splice(p.code, [(a, e, new)])


class Idle(Transform):
    name = "idle"
    summary = "drop a register's reset or its hold (enable) where no output observes it"

    def options(self, d: Design) -> list[Option]:
        p, out, seen = d.parsed(), [], {_norm(d.code)}
        alive = live(p)
        for b in blocks(p):
            # a register no output reads is removed by synthesis: its options would only measure noise
            for reg in sorted(r for r in b.regs if alive is None or r in alive):
                for mode in MODES:
                    try:
                        new = rewrite(p, reg, mode)
                    except TransformError:
                        continue
                    if mode.endswith(("no_hold", "no_gate")) and not _changes(p, b, reg, mode.endswith("no_gate")):
                        continue
                    if _norm(new) not in seen:      # the same text as the design or as another option
                        seen.add(_norm(new))
                        out.append(self.option(reg, f"{reg}: {mode.replace('_', ' ')}", mode=mode))
        return out

    def apply(self, d: Design, o: Option) -> str:
        return rewrite(d.parsed(), o.site, o.params.get("mode"))


def _changes(p, b, reg, gate: bool) -> bool:
    """Whether dropping holds (gate False) or zero gates (gate True) changes the register's statements."""
    keep = lambda r: r == reg  # noqa: E731
    return _Slicer(p, keep, not gate, gate)(b.body) != _Slicer(p, keep)(b.body)


def _norm(t: str) -> str:
    """The text without layout, `begin`/`end` and block order: a rewrite that only moved or re-wrapped the
    register's statements (nothing to drop) is no option."""
    t = re.sub(r"\bbegin\b|\bend\b", " ", t)
    blocks_ = re.split(r"\balways\b", t)
    return " ".join(sorted(" ".join(b.split()) for b in blocks_))


register(Idle())
