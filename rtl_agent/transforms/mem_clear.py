"""Drop a memory's clears: the writes of a constant into an array's words (`for (i...) mem[i] <= 0;` at reset,
`mem[sp] = 0;` after a pop) that no later read can observe because every word is written again before it is
read (a stack below its pointer, a FIFO outside its occupied span).

Why: a cleared word costs a reset (or a constant-load mux) on every bit of the array, and the pointer-indexed
clear adds a write port; that the clear is never read follows from the pointers' reachable states, which
synthesis cannot know and the flow's sequential proof (memories become flip-flops) can. A clear whose value a
read does see is refuted by the proof like any other candidate.

Options per memory: every clear of it at once, and each clear site alone when there are several.
"""
from __future__ import annotations

from . import register
from .base import Design, Option, Transform, TransformError
from .syntax import splice, walk

_ASSIGN = ("AssignmentExpression", "NonblockingAssignmentExpression")
_LITERAL = ("IntegerVectorExpression", "IntegerLiteralExpression", "UnbasedUnsizedLiteralExpression")


def _memories(p) -> set:
    """The unpacked arrays of the top (each index selects a word)."""
    return {n for n, s in p.symbols(("Variable",)).items() if getattr(s.type, "isUnpackedArray", False)}


def _items(s) -> list:
    """The statements of s (a begin/end block's items, else s alone)."""
    if s.kind.name == "SequentialBlockStatement":
        return [i for i in s.items if hasattr(i, "kind")]
    return [s]


def _clear(s, mems):
    """The memory a statement writes a constant word into (`mem[k] = 0;`), else None."""
    if s.kind.name != "ExpressionStatement" or s.expr.kind.name not in _ASSIGN:
        return None
    lhs, rhs = s.expr.left, s.expr.right
    while rhs.kind.name == "ParenthesizedExpression":
        rhs = rhs.expression
    if rhs.kind.name not in _LITERAL:
        return None
    if lhs.kind.name == "IdentifierSelectName":         # mem[k]: a name with its selects
        name = lhs.identifier.valueText
    elif lhs.kind.name == "ElementSelectExpression" and lhs.left.kind.name == "IdentifierName":
        name = lhs.left.identifier.valueText
    else:
        return None
    return name if name in mems else None


def sites(p) -> list:
    """(memory, start, end, line, in a begin/end block) per clear: a constant word write, or a `for` loop of
    nothing else."""
    mems = _memories(p)
    if not mems:
        return []
    out, inside = [], set()
    # an initial block's word writes are a ROM's contents, not clears
    nodes = [n for m in p.module.members if getattr(m, "kind", None) is not None and
             m.kind.name in ("AlwaysBlock", "AlwaysFFBlock") for n in walk(m)]
    for n in nodes:
        if n.kind.name == "ForLoopStatement":
            body = _items(n.statement)
            got = {_clear(s, mems) for s in body}
            if body and len(got) == 1 and None not in got:
                out.append((got.pop(), n))
                inside.update(p.span(s) for s in body)
        elif n.kind.name == "ExpressionStatement":
            m = _clear(n, mems)
            if m is not None:
                out.append((m, n))
    out = sorted(((m, *p.span(n), n.parent.kind.name == "SequentialBlockStatement") for m, n in out
                  if p.span(n) not in inside), key=lambda x: x[1])
    return [(m, a, b, p.code.count("\n", 0, a) + 1, own) for m, a, b, own in out]


def rewrite(p, mem: str, line: int | None) -> str:
    mine = [(a, b, own) for m, a, b, ln, own in sites(p) if m == mem and (line is None or ln == line)]
    if not mine:
        raise TransformError(f"no clear of {mem!r}" + (f" at line {line}" if line else ""))
    return splice(p.code, [_cut(p.code, a, b, own) for a, b, own in mine])


def _cut(code: str, a: int, b: int, own: bool) -> tuple:
    """The edit removing code[a:b]: its whole line when it is an item of a begin/end block alone on its line, else
    an empty statement (which keeps an `if (c) <clear>` or a case arm well formed)."""
    s, e = code.rfind("\n", 0, a) + 1, code.find("\n", b)
    e = len(code) if e < 0 else e
    if own and not code[s:a].strip() and not code[b:e].strip():
        return s, min(e + 1, len(code)), ""
    return a, b, ";"


class MemClear(Transform):
    name = "mem_clear"
    summary = "drop the constant writes (clears) into a memory's words where no read observes them"

    def options(self, d: Design) -> list[Option]:
        p, out = d.parsed(), []
        found = sites(p)
        for mem in sorted({m for m, *_ in found}):
            lines = [ln for m, _, _, ln, _ in found if m == mem]
            out.append(self.option(mem, f"{mem}: drop its {len(lines)} clear{'s' * (len(lines) > 1)}"
                                   if len(lines) > 1 else f"{mem}: drop its clear at line {lines[0]}", line=None))
            if len(lines) > 1:
                out += [self.option(mem, f"{mem}: drop its clear at line {ln}", line=ln) for ln in lines]
        return out

    def apply(self, d: Design, o: Option) -> str:
        return rewrite(d.parsed(), o.site, o.params.get("line"))


register(MemClear())
