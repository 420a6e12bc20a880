"""Reading procedural code from slang's elaborated AST, for kinds that rewrite statements (loop_tree,
counter_toggle): the expression as written under implicit conversions, the symbol an expression names, the
constant value of an expression (loop variables from an environment), a for loop's values, a block's statements.
"""
from __future__ import annotations

from .datapath.reader import literal

MAX_STEPS = 256          # a loop unrolled into more leaves than this is left alone


class NoSite(ValueError):
    pass


def _strip(e):
    """Under slang's implicit conversions, the expression as written."""
    while e.kind.name == "Conversion" and (e.syntax is None or str(e.conversionKind).endswith("Propagated")
                                           or str(e.conversionKind).endswith("Implicit")):
        e = e.operand
    return e


def _is(a, b) -> bool:
    """Two symbols are the same (slang's Symbol.__eq__ raises on None)."""
    return a is not None and b is not None and a == b


def _sym(e):
    e = _strip(e)
    return e.symbol if e.kind.name == "NamedValue" else None


def _refs(e) -> list:
    out = []

    def visit(n):
        if getattr(n, "kind", None) is not None and n.kind.name == "NamedValue":
            out.append(n)
        return True
    e.visit(visit)
    return out


def const(e, env: dict) -> int:
    """The value of a constant expression, loop variables taken from env {name: int}."""
    e = _strip(e)
    k = e.kind.name
    if k in ("IntegerLiteral", "UnbasedUnsizedIntegerLiteral"):
        return literal(str(e.value))
    if k == "NamedValue":
        s = e.symbol
        if s.name in env:
            return env[s.name]
        if s.kind.name == "Parameter":
            return literal(str(s.value))
        raise NoSite(f"{s.name} is not a constant")
    if k == "Conversion":
        return const(e.operand, env)
    if k == "UnaryOp" and e.op.name == "Minus":
        return -const(e.operand, env)
    if k == "BinaryOp":
        a, b = const(e.left, env), const(e.right, env)
        ops = {"Add": a + b, "Subtract": a - b, "Multiply": a * b, "LogicalShiftLeft": a << max(b, 0),
               "LogicalShiftRight": a >> max(b, 0), "BinaryAnd": a & b, "BinaryOr": a | b, "BinaryXor": a ^ b}
        if e.op.name in ops:
            return ops[e.op.name]
        if e.op.name in ("Divide", "Mod") and b:
            return int(a / b) if e.op.name == "Divide" else a - b * int(a / b)
    raise NoSite(f"not a constant: {k}")


def _values(f) -> tuple:
    """(loop variable symbol, its values in order) of a for loop with constant bounds and step."""
    if f.loopVars:
        var = f.loopVars[0]
        start = const(var.initializer, {})
    elif len(f.initializers) == 1 and _sym(f.initializers[0].left) is not None:
        var = _sym(f.initializers[0].left)
        start = const(f.initializers[0].right, {})
    else:
        raise NoSite("loop initializer")
    stop = f.stopExpr
    if stop is None or stop.kind.name != "BinaryOp" or len(f.steps) != 1:
        raise NoSite("loop bound")
    op = stop.op.name
    if _is(_sym(stop.left), var):
        bound = const(stop.right, {})
    elif _is(_sym(stop.right), var):
        bound = const(stop.left, {})
        op = {"LessThan": "GreaterThan", "GreaterThan": "LessThan", "LessThanEqual": "GreaterThanEqual",
              "GreaterThanEqual": "LessThanEqual"}.get(op, op)
    else:
        raise NoSite("loop bound")
    test = {"LessThan": int.__lt__, "LessThanEqual": int.__le__, "GreaterThan": int.__gt__,
            "GreaterThanEqual": int.__ge__, "Inequality": int.__ne__}.get(op)
    step = _step(f.steps[0], var)
    if test is None or step == 0:
        raise NoSite("loop bound")
    out, v = [], start
    while test(v, bound):
        out.append(v)
        v += step
        if len(out) > MAX_STEPS:
            raise NoSite("too many iterations")
    return var, out


def _step(s, var) -> int:
    k = s.kind.name
    if k == "UnaryOp" and _is(_sym(s.operand), var):
        return {"Postincrement": 1, "Preincrement": 1, "Postdecrement": -1, "Predecrement": -1}.get(s.op.name, 0)
    if k == "Assignment" and _is(_sym(s.left), var):
        r = _strip(s.right)
        if s.isCompound:
            k2 = const(r.right, {}) if r.kind.name == "BinaryOp" else const(r, {})
            return k2 if s.op.name == "Add" else -k2 if s.op.name == "Subtract" else 0
        if r.kind.name == "BinaryOp" and _is(_sym(r.left), var) and r.op.name in ("Add", "Subtract"):
            k2 = const(r.right, {})
            return k2 if r.op.name == "Add" else -k2
    return 0


def _flat(s) -> list:
    """The statements of a loop body, begin/end blocks opened."""
    k = s.kind.name
    if k == "Block" and str(s.blockKind).endswith("Sequential"):
        return _flat(s.body)
    if k == "List":
        return [x for y in s.list for x in _flat(y)]
    if k == "Empty":
        return []
    return [s]


def _assign(s):
    """The blocking assignment of an expression statement, or None."""
    if s.kind.name == "ExpressionStatement" and s.expr.kind.name == "Assignment" and not s.expr.isNonBlocking:
        return s.expr
    return None


def _written(stmts) -> set:
    out = set()

    def visit(n):
        if getattr(n, "kind", None) is not None and n.kind.name == "Assignment":
            sym = _sym(n.left)
            out.add(sym.name if sym is not None else "\0partial")
        return True
    for s in stmts:
        s.visit(visit)
    return out


def _syn(e):
    while e.syntax is None and e.kind.name == "Conversion":
        e = e.operand
    if e.syntax is None:
        raise NoSite("an operand without source text")
    return e.syntax


def _member(node):
    """The module item (an always block) a statement is in."""
    while node.parent is not None and node.parent.kind.name not in ("ModuleDeclaration",):
        node = node.parent
    return node


def _indent(code: str, off: int) -> str:
    start = code.rfind("\n", 0, off) + 1
    line = code[start:off]
    return line if not line.strip() else line[:len(line) - len(line.lstrip())]
