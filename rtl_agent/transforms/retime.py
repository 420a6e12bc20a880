"""Kind `retime`: an operation on two pipeline registers moves in front of them, so one register holds its
result instead of two holding its operands (forward retiming at the same latency).

Recognised: a binary `R1 op R2` (op one of + - * & | ^, unsigned) where R1 and R2 are whole registers (or
elements of a register array at constant indices) loaded on the same clock edges with the same reset (one
always block or two alike), each loaded unconditionally (`R <= e;` outside the reset branch, no enable), reset
to a literal (or both without reset), read nowhere but in this one expression, assigned nowhere else. Then
`P <= e1 op e2;` with P as wide as the operation is evaluated there (its context width W) replaces both, and
the expression reads P. P is reset to `r1 op r2` (mod 2^W). Since P is loaded on the same edges with the same
reset, P == R1 op R2 holds in every cycle (and from the all-zero start the prover assumes), so the rewrite is
exact: no don't-care, no change of latency. The move is repeated while P's new operands are again such a pair
(a delay line of operands becomes a delay line of results: RTLLM adder_pipe_64bit's delayed 16-bit operand
pairs become 17-bit sums). Only moves with W < width(R1) + width(R2) are made: fewer flops, same logic.

Options: each pair's chain (moved as far back as it goes), and every pair of the design at once.

Why: Yosys keeps registers where they are written (no retiming in the default flow), so a pipeline that delays
both operands of an add pays for both; bench/headroom/multi_pipe_4bit/product_first.v (1.27x by hand) and
adder_pipe_64bit/chunk_sums.v are this move written by hand. The flow proves every rewrite (SAT induction or
ABC dprove: the registers do not correspond one to one, P corresponds to a function of R1 and R2).
"""
from __future__ import annotations

from . import register
from .base import Design, Option, Transform, TransformError
from .datapath.reader import Unsupported, literal
from .procedural import _strip
from .syntax import splice, walk

OPS = {"AddExpression": ("+", "plus"), "SubtractExpression": ("-", "minus"), "MultiplyExpression": ("*", "times"),
       "BinaryAndExpression": ("&", "and"), "BinaryOrExpression": ("|", "or"), "BinaryXorExpression": ("^", "xor")}
PRIMARY = ("NamedValue", "ElementSelect", "RangeSelect", "Concatenation", "Replication", "IntegerLiteral")
MAX_MOVES = 64


def _unparen(n):
    while n.kind.name == "ParenthesizedExpression":
        n = n.expression
    return n


def _within(p, node, outer) -> bool:
    a, b = p.span(node)
    c, d = p.span(outer)
    return c <= a and b <= d


def _ast_of(p, node, kinds=None):
    """The elaborated expression whose source is exactly `node`, implicit conversions taken off."""
    span = p.span(node)
    got = p.ast_nodes(lambda n: getattr(n, "syntax", None) is not None and (kinds is None or n.kind.name in kinds)
                      and p.span(n.syntax) == span)
    return _strip(got[0]) if got else None


def _key(p, n):
    """The register an expression names: (name, None) for a whole register, (name, k) for element k of an
    unpacked array of registers (a constant index); None for anything else."""
    n = _unparen(n)
    if n.kind.name == "IdentifierName":
        return n.identifier.valueText, None
    if n.kind.name == "IdentifierSelectName" and len(n.selectors) == 1:
        sel = n.selectors[0]
        if sel.kind.name == "ElementSelect" and sel.selector is not None and sel.selector.kind.name == "BitSelect" \
                and sel.selector.expr.kind.name == "IntegerLiteralExpression":
            name = n.identifier.valueText
            t = getattr(p.symbols(("Variable",)).get(name), "type", None)
            if t is not None and t.isUnpackedArray:
                return name, int(p.text(sel.selector.expr).strip())
    return None


def _label(key) -> str:
    return key[0] if key[1] is None else f"{key[0]}[{key[1]}]"


def _uses(p, name) -> list:
    """(node, key, is an assignment target) of every mention of `name` in the top module's body."""
    out = []
    for n in walk(p.module):
        if n.kind.name in ("IdentifierName", "IdentifierSelectName") and n.identifier.valueText == name and \
                n.parent.kind.name != "IdentifierSelectName":
            par = n.parent
            target = par.kind.name.endswith("AssignmentExpression") and p.span(par.left) == p.span(n)
            out.append((n, _key(p, n), target))
    return out


class _Reg:
    """A register (or one element of a register array) loaded unconditionally in one clocked block and read in
    exactly one place: its update, its reset and its width."""

    def __init__(self, p, b, key):
        self.p, self.b, self.key, self.name = p, b, key, _label(key)
        sym = p.symbols(("Variable",)).get(key[0])
        t = getattr(sym, "type", None)
        if t is not None and key[1] is not None:
            t = t.elementType
        self.width = int(t.bitWidth) if t is not None and t.isIntegral else 0
        if not self.width:
            raise TransformError(f"{self.name}: not a vector register")
        uses = _uses(p, key[0])
        if any(k is None or (k[1] is None) != (key[1] is None) for _, k, _ in uses):
            raise TransformError(f"{key[0]}: used whole or at a variable index")
        reads = [n for n, k, tgt in uses if k == key and not tgt]
        stmts = [n.parent.parent for n, k, tgt in uses if k == key and tgt]
        if len(reads) != 1:
            raise TransformError(f"{self.name} is read elsewhere")
        self.read = reads[0]
        if any(s.kind.name != "ExpressionStatement" or s.expr.kind.name != "NonblockingAssignmentExpression"
               or not _within(p, s, b.node) for s in stmts):
            raise TransformError(f"{self.name}: assigned outside its block or by a blocking assignment")
        self.update_root = update_root = b.rest if b.reset is not None else b.body
        self.reset_root = reset_root = b.top.statement if b.reset is not None else None
        update = [s for s in stmts if update_root is not None and _within(p, s, update_root)]
        at_reset = [s for s in stmts if reset_root is not None and _within(p, s, reset_root)]
        if len(update) != 1 or len(at_reset) != (b.reset is not None) or len(stmts) != len(update) + len(at_reset):
            raise TransformError(f"{self.name}: not assigned once per branch")
        self.update, self.at_reset = update[0], (at_reset[0] if at_reset else None)
        for st, root in ((self.update, update_root), (self.at_reset, reset_root)):
            if st is not None and not _plain_path(p, st, root):
                raise TransformError(f"{self.name}: loaded under a condition")
        self.reset_value = None
        if self.at_reset is not None:
            try:
                self.reset_value = literal(p.text(self.at_reset.expr.right))
            except Unsupported:
                raise TransformError(f"{self.name}: reset to a non-literal") from None
        self.rhs = self.update.expr.right
        self.rhs_ast = _ast_of(p, self.rhs)


def _plain_path(p, s, root) -> bool:
    """s is reached from root through begin/end blocks only (no if, case or loop on the way)."""
    if p.span(s) == p.span(root):
        return True
    n = s.parent
    while n is not None and n.kind.name == "SequentialBlockStatement":
        if p.span(n) == p.span(root):
            return True
        n = n.parent
    return False


def _ports(p) -> set:
    return {n.name.valueText for n in walk(p.module.header) if n.kind.name == "Declarator"}


def _inline(r: _Reg, w_ctx: int) -> bool:
    """Whether R's loaded expression may be written straight into P's operation (same value as R there)."""
    t = r.rhs_ast
    if t is None or t.kind.name == "Conversion" or t.type.isSigned or not t.type.isIntegral:
        return False
    if t.kind.name in PRIMARY:           # self-determined: zero-extended alike in both places
        return t.type.bitWidth <= r.width
    return t.type.bitWidth == r.width == w_ctx


class _Pair:
    """A site: the expression `R1 op R2` and what the move writes."""

    def __init__(self, p, node):
        self.p, self.node = p, node
        if node.kind.name not in OPS:
            raise TransformError("not a retimable operator")
        k1, k2 = _key(p, node.left), _key(p, node.right)
        if k1 is None or k2 is None:
            raise TransformError("operands are not registers")
        if k1 == k2 or {k1[0], k2[0]} & _ports(p):
            raise TransformError("same register twice or a port")
        from .idle import blocks
        b1 = next((b for b in blocks(p) if k1[0] in b.regs), None)
        b2 = next((b for b in blocks(p) if k2[0] in b.regs), None)
        if b1 is None or b2 is None or _timing(p, b1) != _timing(p, b2):
            raise TransformError("operands are not registers on one clock edge with one reset")
        self.r1, self.r2 = _Reg(p, b1, k1), _Reg(p, b2, k2)
        for r in (self.r1, self.r2):
            if _within(p, node, r.update) or (r.at_reset is not None and _within(p, node, r.at_reset)):
                raise TransformError(f"{r.name} feeds itself")
        op_ast = _ast_of(p, node, ("BinaryOp",))
        if op_ast is None or op_ast.type.isSigned or not op_ast.type.isIntegral:
            raise TransformError("a signed or unelaborated operation")
        self.width = int(op_ast.type.bitWidth)
        if self.width >= self.r1.width + self.r2.width:
            raise TransformError("the result is not narrower than its operands")
        self.op, word = OPS[node.kind.name]
        base = f"{k1[0]}{'' if k1[1] is None else k1[1]}_{word}_{k2[0]}{'' if k2[1] is None else k2[1]}"
        self.name = _fresh(p, base if len(base) <= 24 else f"{word}_q")     # a chain's names would grow

    def rewrite(self) -> tuple[str, tuple]:
        """(new code, the names of P's operands when they are plain names)."""
        p, r1, r2, w = self.p, self.r1, self.r2, self.width
        edits, wires, names = [], [], []
        for r, suffix in ((r1, "a"), (r2, "b")):
            text = p.text(r.rhs).strip()
            if _inline(r, w):
                key = _key(p, r.rhs)
                names.append(None if key is None else _label(key))
                operands = text if key is not None else f"({text})"
            else:
                wire = _fresh(p, f"{self.name}_{suffix}")
                wires.append(f"wire [{r.width - 1}:0] {wire} = {text};")
                operands = wire
                names.append(None)
            setattr(self, "x" + suffix, operands)
        edits.append((*p.span(r1.update), f"{self.name} <= {self.xa} {self.op} {self.xb};"))
        alone = p.span(r2.b.node) != p.span(r1.b.node) and r2.b.regs == {r2.key[0]} and r2.key[1] is None
        if alone:                   # R2's block loads nothing else: it goes
            edits.append(_line(p, r2.b.node))
        else:
            edits.append(_drop(p, r2.update, r2.update_root))
        if r1.at_reset is not None:
            v = _fold(self.op, r1.reset_value, r2.reset_value, w)
            edits.append((*p.span(r1.at_reset), f"{self.name} <= {w}'d{v};"))
            if not alone:
                edits.append(_drop(p, r2.at_reset, r2.reset_root))
        edits.append((*p.span(self.node), self.name))
        decl = f"reg [{w - 1}:0] {self.name};"
        arrays = {r.key[0] for r in (r1, r2) if r.key[1] is not None}
        drop = [r.key[0] for r in (r1, r2) if r.key[1] is None] + \
            sorted(a for a in arrays if all(k in (r1.key, r2.key) for _, k, _ in _uses(p, a)))
        if drop:
            edits += _undeclare(p, tuple(drop), decl)
        else:                       # both arrays keep other elements: P is declared before the first
            edits.append(_before_decl(p, r1.key[0], decl))
        if wires:
            a = p.span(r1.b.node)[0]
            col = a - (p.code.rfind("\n", 0, a) + 1)
            edits.append((a, a, "".join(w_ + "\n" + " " * col for w_ in wires)))
        return splice(p.code, edits), tuple(names)


def _timing(p, b) -> tuple:
    """What makes two clocked blocks load on the same edges with the same reset."""
    events = sorted((e.edge.valueText, " ".join(p.text(e.expr).split())) for e in b.events)
    reset = " ".join(p.text(b.top.predicate).split()) if b.reset is not None else None
    return tuple(events), b.reset, reset


def _drop(p, stmt, root) -> tuple:
    """An edit deleting a statement; a branch's only statement becomes the null statement."""
    if p.span(stmt) == p.span(root):
        return (*p.span(stmt), ";")
    return _line(p, stmt)


def _line(p, node) -> tuple:
    """An edit deleting node, with its line when nothing else is on it."""
    a, b = p.span(node)
    start, end = p.code.rfind("\n", 0, a) + 1, p.code.find("\n", b)
    end = len(p.code) if end < 0 else end
    if not p.code[start:a].strip() and not p.code[b:end].strip():
        return start, min(end + 1, len(p.code)), ""
    return a, b, ""


def _fold(op, a, b, w) -> int:
    v = {"+": a + b, "-": a - b, "*": a * b, "&": a & b, "|": a | b, "^": a ^ b}[op]
    return v % (1 << w)


def _fresh(p, base) -> str:
    taken = {n.identifier.valueText for n in walk(p.module) if n.kind.name == "IdentifierName"} | \
        {n.name.valueText for n in walk(p.module) if n.kind.name == "Declarator"}
    name, i = base, 1
    while name in taken:
        name, i = f"{base}_{i}", i + 1
    return name


def _before_decl(p, name, text) -> tuple:
    for d in walk(p.module):
        if d.kind.name == "DataDeclaration" and any(getattr(x, "kind", None) is not None and x.kind.name == "Declarator"
                                                    and x.name.valueText == name for x in d.declarators):
            a = p.span(d)[0]
            return a, a, text + "\n" + " " * (a - (p.code.rfind("\n", 0, a) + 1))
    raise TransformError(f"{name}: no declaration of its own")


def _undeclare(p, drop: tuple, instead: str) -> list:
    """Edits that drop the declarations of the names in `drop` (other names of a multi-name declaration stay),
    writing `instead` where the first of them was."""
    edits, left = [], set(drop)
    for d in walk(p.module):
        if d.kind.name != "DataDeclaration":
            continue
        decls = [x for x in d.declarators if getattr(x, "kind", None) is not None and x.kind.name == "Declarator"]
        mine = [x.name.valueText for x in decls if x.name.valueText in left]
        if not mine:
            continue
        new = instead if drop[0] in mine else ""
        rest = ", ".join(p.text(x) for x in decls if x.name.valueText not in left)
        left -= set(mine)
        if rest:
            a = p.span(d)[0]
            indent = " " * (a - (p.code.rfind("\n", 0, a) + 1))
            new = f"{p.text(d.type)} {rest};" + (f"\n{indent}{new}" if new else "")
        edits.append((*p.span(d), new) if new else _line(p, d))
    if left:
        raise TransformError(f"{sorted(left)}: no declaration of their own")
    return edits


def pairs(p) -> list[_Pair]:
    from .idle import blocks            # imported here: importing idle first would put its options before ours
    out = []
    for n in walk(p.module):
        if n.kind.name in OPS:
            try:
                out.append(_Pair(p, n))
            except TransformError:
                continue
    return out


def _find(p, n1, n2) -> _Pair:
    for s in pairs(p):
        if (s.r1.name, s.r2.name) == (n1, n2):
            return s
    raise TransformError(f"no retimable pair {n1}, {n2}")


def chain(d: Design, n1: str, n2: str) -> tuple[str, int, int]:
    """(code, moves, flops saved): the pair moved back while its new operands are again a pair."""
    code, moves, saved = d.code, 0, 0
    while moves < MAX_MOVES:
        try:
            s = _find(d.__class__(code, d.top).parsed(), n1, n2)
        except TransformError:
            if moves == 0:
                raise
            break
        saved += s.r1.width + s.r2.width - s.width
        code, names = s.rewrite()
        moves += 1
        if None in names:
            break
        n1, n2 = names
    return code, moves, saved


def every(d: Design) -> tuple[str, int, int]:
    code, moves, saved = d.code, 0, 0
    while moves < MAX_MOVES:
        got = pairs(d.__class__(code, d.top).parsed())
        if not got:
            break
        saved += got[0].r1.width + got[0].r2.width - got[0].width
        code, _ = got[0].rewrite()
        moves += 1
    return code, moves, saved


class Retime(Transform):
    name = "retime"
    summary = "an operation on two pipeline registers moves before them: one register of its result"

    def options(self, d: Design) -> list[Option]:
        p, out, seen = d.parsed(), [], set()
        found = pairs(p)
        for s in found:
            code, moves, saved = chain(d, s.r1.name, s.r2.name)
            seen.add(code)
            out.append(self.option(f"{s.r1.name},{s.r2.name}", f"{s.r1.name} {s.op} {s.r2.name}: registered as one "
                                   f"{s.width}-bit result, {moves} stage(s) back ({saved} flops fewer)",
                                   pair=[s.r1.name, s.r2.name]))
        if found:                   # a move can make a new pair (P and a register beside it): every() finds it
            code, moves, saved = every(d)
            if code not in seen:
                out.append(self.option("every pair", f"every register pair read by one operation: {moves} moves "
                                       f"({saved} flops fewer)", pair=[]))
        return out

    def apply(self, d: Design, o: Option) -> str:
        pair = o.params.get("pair") or []
        if not pair:
            return every(d)[0]
        if len(pair) != 2:
            raise TransformError("a pair names two registers")
        return chain(d, pair[0], pair[1])[0]


register(Retime())
