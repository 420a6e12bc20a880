"""Which signals of a module can reach an output: a register that reaches none is removed by synthesis whatever
its reset or hold, so an option on it changes no cell and only spends an evaluation (and may look like a find
from noise). Over-approximate on purpose: every signal an always block reads counts as feeding every signal it
assigns, and a module with instances or generate blocks counts everything as live."""
from __future__ import annotations

from .syntax import syntax, walk

_OPAQUE = ("HierarchyInstantiation", "LoopGenerate", "IfGenerate", "CaseGenerate", "GenerateRegion",
           "GenerateBlock", "FunctionDeclaration", "TaskDeclaration")


def _names(node) -> set:
    return {n.identifier.valueText for n in walk(node)
            if n.kind.name in ("IdentifierName", "IdentifierSelectName")}


def _targets(lhs) -> set:
    """The roots an assignment target writes (every name in it: an index is read, which only adds liveness)."""
    return _names(lhs)


def live(p) -> set | None:
    """The names that can reach an output port of the top; None when the module is beyond this reading."""
    outs = {port.name for port in p.body.portList if port.direction.name != "In"}
    deps: dict[str, set] = {}

    def add(lhs_names, rhs_names):
        for n in lhs_names:
            deps.setdefault(n, set()).update(rhs_names)

    for m in p.module.members:
        if not isinstance(m, syntax.SyntaxNode):
            continue
        k = m.kind.name
        if k in _OPAQUE or any(n.kind.name in _OPAQUE for n in walk(m)):
            return None
        if k == "ContinuousAssign":
            for a in walk(m):
                if a.kind.name == "AssignmentExpression":
                    add(_targets(a.left), _names(a.right))
        elif k in ("AlwaysBlock", "AlwaysFFBlock", "AlwaysCombBlock", "AlwaysLatchBlock", "InitialBlock"):
            written = set()
            for a in walk(m):
                if a.kind.name in ("AssignmentExpression", "NonblockingAssignmentExpression"):
                    written |= _targets(a.left)
            add(written, _names(m))
        elif k in ("NetDeclaration", "DataDeclaration"):
            for d in walk(m):
                if d.kind.name == "Declarator" and d.initializer is not None:
                    add({d.name.valueText}, _names(d.initializer))
    seen, todo = set(outs), list(outs)
    while todo:
        for n in deps.get(todo.pop(), ()):
            if n not in seen:
                seen.add(n)
                todo.append(n)
    return seen
