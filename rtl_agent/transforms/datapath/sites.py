"""Find the combinational sites of a design and read each one into datapath terms (see reader).

    found, skipped = sites(parsed)      [Site], {label: reason}

An always block is executed symbolically, bit by bit, so partial assignments (`res[30:0] = ...; res[31] = ...`)
and defaults overwritten later are followed; a bit still unassigned on some path at the end is a latch, and the
block is skipped.
"""
from __future__ import annotations

from .reader import Reader, Site, Unsupported, concat, const_of, declared_lsb, slice_of, to1
from .ir import nodes

UNDEF = "\0undef"


def assemble(bits):
    """A term from a list of (term, index) bits, least significant first; None bits read as UNDEF."""
    runs, i = [], 0
    while i < len(bits):
        j = i + 1
        if bits[i] is None:
            while j < len(bits) and bits[j] is None:
                j += 1
            runs.append(("var", j - i, UNDEF))
        else:
            t, k = bits[i]
            while j < len(bits) and bits[j] is not None and bits[j][0] == t and bits[j][1] == k + (j - i):
                j += 1
            runs.append(slice_of(t, k, j - i))
        i = j
    return concat(list(reversed(runs)))


def has_undef(t) -> bool:
    return any(n[0] == "var" and n[2] == UNDEF for n in nodes([t]))


class Block:
    """Symbolic execution of one combinational always block."""

    def __init__(self, assigned: dict, outer_lookup):
        self.widths = assigned                      # {name: width} of the variables the block assigns
        self.env = {n: [None] * w for n, w in assigned.items()}
        self.outer = outer_lookup
        self.reader = Reader(self.lookup)
        self.late = set()                           # written by a non-blocking assignment: not readable here

    def lookup(self, sym):
        if sym.name in self.late:
            raise Unsupported(f"{sym.name} is read after a non-blocking assignment")
        if sym.name in self.env:
            return assemble(self.env[sym.name])
        return self.outer(sym)

    def run(self, s):
        k = s.kind.name
        if k == "Block":
            if str(s.blockKind).split(".")[-1] != "Sequential":
                raise Unsupported("fork block")
            return self.run(s.body)
        if k == "List":
            for x in s.list:
                self.run(x)
            return None
        if k == "Empty":
            return None
        if k == "ExpressionStatement":
            return self.assign(s.expr)
        if k == "Conditional":
            if len(s.conditions) != 1 or s.conditions[0].pattern is not None:
                raise Unsupported("pattern if")
            c = to1(self.reader.expr(s.conditions[0].expr))
            return self.branch(c, s.ifTrue, s.ifFalse)
        if k == "Case":
            return self.case(s)
        raise Unsupported(f"statement {k}")

    def branch(self, c, st, sf):
        before = {n: list(b) for n, b in self.env.items()}
        self.run(st)
        t_env, self.env = self.env, {n: list(b) for n, b in before.items()}
        if sf is not None:
            self.run(sf)
        self.env = self.merge(c, t_env, self.env)

    def case(self, s):
        if str(s.condition).split(".")[-1] != "Normal":
            raise Unsupported("casez/casex")
        sel = self.reader.expr(s.expr)
        before = {n: list(b) for n, b in self.env.items()}
        arms = []
        for item in s.items:
            conds = [("eq", 1, sel, self.reader.expr(e)) for e in item.expressions]
            c = conds[0]
            for x in conds[1:]:
                c = ("or", 1, c, x)
            self.env = {n: list(b) for n, b in before.items()}
            self.run(item.stmt)
            arms.append((c, self.env))
        self.env = {n: list(b) for n, b in before.items()}
        if s.defaultCase is not None:
            self.run(s.defaultCase)
        for c, env in reversed(arms):
            self.env = self.merge(c, env, self.env)

    def merge(self, c, t_env, f_env):
        out = {}
        for n, tb in t_env.items():
            fb, bits, i = f_env[n], list(tb), 0
            while i < len(tb):
                if tb[i] == fb[i]:
                    i += 1
                    continue
                j = i + 1
                while j < len(tb) and tb[j] != fb[j]:
                    j += 1
                m = ("mux", j - i, c, assemble(tb[i:j]), assemble(fb[i:j]))
                bits[i:j] = [(m, k) for k in range(j - i)]
                i = j
            out[n] = bits
        return out

    def assign(self, e):
        if e.kind.name != "Assignment":
            raise Unsupported("compound assignment in a combinational block")
        rhs = self.reader.expr(e.right)
        self.write(e.left, rhs)
        if e.isNonBlocking:         # the same as blocking as long as nothing reads it later in the block
            self.late.update(t.name for t in _targets(e.left))

    def write(self, lhs, v):
        k = lhs.kind.name
        if k == "Concatenation":
            at = v[1]
            for part in lhs.operands:
                w = int(part.type.bitWidth)
                at -= w
                self.write(part, slice_of(v, at, w))
            return
        if k == "NamedValue":
            name = lhs.symbol.name
            self.env[name] = [(v, i) for i in range(v[1])]
            return
        if k in ("RangeSelect", "ElementSelect") and lhs.value.kind.name == "NamedValue":
            name = lhs.value.symbol.name
            base = declared_lsb(lhs.value)
            if k == "ElementSelect":
                lo = const_of(lhs.selector) - base
            else:
                left, right = const_of(lhs.left), const_of(lhs.right)
                sk = str(lhs.selectionKind).split(".")[-1]
                lo = {"Simple": min(left, right), "IndexedUp": left}.get(sk, left - right + 1) - base
            for i in range(v[1]):
                self.env[name][lo + i] = (v, i)
            return
        raise Unsupported(f"assignment target {k}")


def assigned_vars(stmt) -> dict:
    """{name: width} of every variable an always block assigns, in order of first assignment."""
    out = {}

    def visit(n):
        if getattr(n, "kind", None) is not None and n.kind.name == "Assignment":
            for t in _targets(n.left):
                out.setdefault(t.name, int(t.type.bitWidth))
        return True
    stmt.visit(visit)
    return out


def _targets(lhs):
    k = lhs.kind.name
    if k == "NamedValue":
        return [lhs.symbol]
    if k == "Concatenation":
        return [s for o in lhs.operands for s in _targets(o)]
    if k in ("RangeSelect", "ElementSelect"):
        return _targets(lhs.value)
    raise Unsupported(f"assignment target {k}")


def _line(p, off: int) -> int:
    return p.code.count("\n", 0, off) + 1


def _refs(p) -> list:
    """(name, offset) of every signal read or written in the top body."""
    return [(n.symbol.name, n.sourceRange.start.offset)
            for n in p.ast_nodes(lambda n: getattr(n, "kind", None) is not None and n.kind.name == "NamedValue")]


def _drivers(p) -> dict:
    """{net: its driving expression} for nets driven by one whole-net continuous assignment or initializer."""
    out, seen, spans = {}, {}, {}
    for m in p.body:
        k = m.kind.name
        if k == "ContinuousAssign" and m.assignment.left.kind.name == "NamedValue":
            name = m.assignment.left.symbol.name
            seen[name] = seen.get(name, 0) + 1
            out[name] = m.assignment.right
            stmt = m.assignment.syntax.parent if m.assignment.syntax is not None else None
            if stmt is not None and len(stmt.assignments) == 1:
                spans[name] = p.span(stmt)
        elif k == "Net" and m.initializer is not None:
            seen[m.name] = seen.get(m.name, 0) + 1
            out[m.name] = m.initializer
            decl = m.syntax.parent
            if decl is not None and decl.kind.name == "NetDeclaration" and len(decl.declarators) == 1:
                spans[m.name] = p.span(decl)
    return {n: (e, spans.get(n)) for n, e in out.items() if seen[n] == 1}


def _is_comb(m) -> bool:
    pk = str(m.procedureKind).split(".")[-1]
    if pk == "AlwaysComb":
        return True
    if pk != "Always" or m.body.kind.name != "Timed":
        return False
    tk = m.body.timing
    if tk.kind.name == "ImplicitEvent":
        return True
    text = str(tk.syntax) if tk.syntax is not None else ""
    return tk.kind.name in ("SignalEvent", "EventList") and "edge" not in text


def sites(p):
    """([Site], {label: reason}) of the top module of parsed design p."""
    refs, drivers = _refs(p), _drivers(p)
    ports = {m.name for m in p.body if m.kind.name == "Port"}
    found, skipped = [], {}
    for m in p.body:
        k = m.kind.name
        try:
            if k == "ContinuousAssign":
                syn = m.assignment.syntax
                a, b = p.span(syn.parent) if syn.parent is not None else p.span(syn)
                lookup = _outer(p, refs, drivers, ports, (a, b))
                rhs = Reader(lookup).expr(m.assignment.right)
                gone = list(lookup.inlined)
                lhs = p.text(m.assignment.left.syntax)
                label = f"assign {lhs} (line {_line(p, a)})"
                found.append(Site(label, "assign", p.span(m.assignment.right.syntax), [(lhs, rhs[1])], [rhs],
                                  inlined=gone, line=_line(p, a), at=a))
            elif k == "Net" and m.initializer is not None:
                decl = m.syntax.parent
                a, b = p.span(decl)
                lookup = _outer(p, refs, drivers, ports, p.span(m.initializer.syntax))
                rhs = Reader(lookup).expr(m.initializer)
                gone = list(lookup.inlined)
                label = f"wire {m.name} (line {_line(p, a)})"
                found.append(Site(label, "decl", p.span(m.initializer.syntax), [(m.name, rhs[1])], [rhs],
                                  inlined=gone, line=_line(p, a), at=a))
            elif k == "ProceduralBlock" and _is_comb(m):
                a, b = p.span(m.syntax)
                label = f"always (line {_line(p, a)})"
                stmt = m.body.stmt if m.body.kind.name == "Timed" else m.body
                assigned = assigned_vars(stmt)
                outer = _outer(p, refs, drivers, ports, (a, b))
                blk = Block(assigned, outer)
                blk.run(stmt)
                roots = [assemble(blk.env[n]) for n in assigned]
                if any(has_undef(r) for r in roots):
                    raise Unsupported("a variable is not assigned on every path (latch)")
                found.append(Site(label, "always", (a, b), [(n, w) for n, w in assigned.items()], roots,
                                  inlined=list(outer.inlined), line=_line(p, a), at=a))
        except (Unsupported, AttributeError, RecursionError) as e:
            skipped[f"{k} at line {_line(p, p.span(m.syntax)[0]) if m.syntax is not None else '?'}"] = str(e)
    return found, skipped


def _outer(p, refs, drivers, ports, span):
    """Signal lookup for a site: inline a net driven once whose every reference lies inside the site or inside
    the drivers already inlined into it (so a chain of wires, each read once by the next, is read whole)."""
    busy, inlined, spans = set(), [], [span]

    def inside(o):
        return any(a <= o < b for a, b in spans)

    def lookup(sym):
        name = sym.name
        w = int(sym.type.bitWidth)
        where = [o for n, o in refs if n == name]
        if name in drivers and name not in ports and name not in busy and where and all(map(inside, where)):
            expr, stmt = drivers[name]
            busy.add(name)
            if expr.syntax is not None:
                spans.append(p.span(expr.syntax))
            try:
                t = Reader(lookup).expr(expr)
            finally:
                busy.discard(name)
            if stmt and name not in [n for n, _ in inlined]:
                inlined.append((name, stmt))
            return t
        return ("var", w, name)
    lookup.inlined = inlined
    return lookup
