"""Share one wide unit among mutually exclusive arms: where the branches of a case/if (or the arms of a ?:) each
compute an operator of one family (+/-, *, <<, >>/>>>, <, >, <=, >=), the same conditions select the operands
first, one unit computes, and every arm reads its result.

Why: Yosys builds one cell per written operator and a result mux after them; its `share` pass merges only
some cell types and ABC cannot move a mux across a carry chain, so an ALU whose case computes a + b, a - b,
b << a, b >> a ... keeps an adder, a subtractor and a shifter per arm (RTLLM's alu by hand: 4.59x). The copy of
the control structure that selects the operands reads only what the original conditions read, so it is
offered only where conditions and operands read no variable a blocking assignment of the same block writes.

Operands are extended as the original context extended them (a signed operator's operands by sign, others by
zero), so the shared unit at the widest context width gives every arm its own bits; `+` and `-` share one
adder with a conditionally inverted operand and carry-in (variant "addsub"), `>>` and `>>>` one arithmetic
shifter one bit wider, signed and unsigned compares one signed compare one bit wider. An option is offered
only where the per-PDK cost table (datapath/costs.py) says the unit saved costs more than the operand muxes.
"""
from __future__ import annotations

import re

from . import register
from .base import Design, Option, Transform, TransformError
from .share import _fresh, _member_start
from .syntax import splice, walk

try:
    from pyslang import ast
except ImportError:             # pragma: no cover
    ast = None

# operator -> family; a family shares one unit
_FAMILY = {"Add": "add", "Subtract": "sub", "Multiply": "mul", "LogicalShiftLeft": "shl",
           "ArithmeticShiftLeft": "shl", "LogicalShiftRight": "shr", "ArithmeticShiftRight": "shr",
           "LessThan": "lt", "GreaterThan": "lt", "LessThanEqual": "lt", "GreaterThanEqual": "lt"}
_ALWAYS = ("AlwaysBlock", "AlwaysCombBlock", "AlwaysFFBlock", "AlwaysLatchBlock")
_LITERAL = re.compile(r"\d*\s*'[sS]?[bodhBODH]\s*[0-9a-fA-FxXzZ_?]+|\$\w+|\b\d+\b")


class _Leaf:
    def __init__(self, a, z, path):
        self.a, self.z, self.path = a, z, path       # the expression's span, the branches leading to it


def _key(conds) -> int:
    """A fresh branch number (id() of pyslang's wrappers is not stable: they are made on each access)."""
    conds["n"] = conds.get("n", 0) + 1
    return conds["n"]


def _clean(text: str) -> str:
    return " ".join(re.sub(r"//[^\n]*|/\*.*?\*/", " ", text, flags=re.S).split())


def _tree(p, node, path, conds, leaves, blocked, ok):
    """Walk a statement (or a ?: expression) collecting leaves; conds[id] = header text of each branch node.
    Returns a copy-description: ("if", id, [then, else]) / ("case", id, [...]) / ("seq", [...]) / ("leaf", k)."""
    k = node.kind.name
    if k == "TimingControlStatement":
        return _tree(p, node.statement, path, conds, leaves, blocked, ok)
    if k == "SequentialBlockStatement":
        kids, k = [], _key(conds)
        for i, s in enumerate(node.items):
            if s.kind.name.endswith("Statement"):
                kids.append(_tree(p, s, path + ((k, "seq", i),), conds, leaves, blocked, ok))
        return ("seq", kids)
    if k == "ConditionalStatement":
        cs = list(node.predicate.conditions)
        if len(cs) != 1 or cs[0].matchesClause is not None:
            return ("opaque",)
        a, _ = p.span(node)
        k = _key(conds)
        conds[k] = _clean(p.code[a:p.span(node.statement)[0]])
        conds[("at", k)] = p.span(node.predicate)
        ok[k] = _reads_ok(p, p.text(node.predicate), blocked)
        then = _tree(p, node.statement, path + ((k, "br", 0),), conds, leaves, blocked, ok)
        els = _tree(p, node.elseClause.clause, path + ((k, "br", 1),), conds, leaves, blocked, ok) \
            if node.elseClause is not None else ("seq", [])
        return ("if", k, [then, els])
    if k == "CaseStatement":
        if node.matchesOrInside is not None and node.matchesOrInside.valueText:
            return ("opaque",)
        a, _ = p.span(node)
        items = list(node.items)
        if not items:
            return ("opaque",)
        k = _key(conds)
        conds[k] = _clean(p.code[a:p.span(items[0])[0]])
        conds[("at", k)] = p.span(node.expr)
        ok[k] = _reads_ok(p, p.text(node.expr), blocked)
        arms = []
        for i, it in enumerate(items):
            if it.kind.name not in ("StandardCaseItem", "DefaultCaseItem"):
                return ("opaque",)
            label = _clean(p.code[p.span(it)[0]:p.span(it.clause)[0]])
            exprs = " ".join(p.text(x) for x in getattr(it, "expressions", ()) if hasattr(x, "kind"))
            ok[k] = ok[k] and _reads_ok(p, exprs, blocked)
            arms.append((label, _tree(p, it.clause, path + ((k, "br", i),), conds, leaves, blocked, ok)))
        return ("case", k, arms)
    if k == "ExpressionStatement" and node.expr.kind.name in ("AssignmentExpression",
                                                               "NonblockingAssignmentExpression"):
        return _expr(p, node.expr.right, path, conds, leaves, blocked, ok)
    return ("opaque",)


def _expr(p, e, path, conds, leaves, blocked, ok):
    """A right-hand side: a ?: splits into branches (its arms are exclusive), anything else is a leaf."""
    while e.kind.name == "ParenthesizedExpression":
        e = e.expression
    if e.kind.name == "ConditionalExpression":
        cs = list(e.predicate.conditions)
        pa, pz = p.span(e.predicate)
        if len(cs) == 1 and cs[0].matchesClause is None and \
                not any(pa <= s[0] and s[1] <= pz for s in conds.get("ops", ())):
            k = _key(conds)
            conds[k] = _clean(f"if ({p.text(e.predicate)})")
            conds[("at", k)] = p.span(e.predicate)
            ok[k] = _reads_ok(p, p.text(e.predicate), blocked)
            return ("if", k, [_expr(p, e.left, path + ((k, "br", 0),), conds, leaves, blocked, ok),
                              _expr(p, e.right, path + ((k, "br", 1),), conds, leaves, blocked, ok)])
    a, z = p.span(e)
    leaves.append(_Leaf(a, z, path))
    return ("leaf", len(leaves) - 1)


def _reads_ok(p, text, blocked) -> bool:
    names = set(re.findall(r"[A-Za-z_]\w*", _LITERAL.sub(" ", text)))
    return not names & blocked and names <= set(p.symbols())


def _roots(p):
    """(root syntax node, blocking-written names) for every always block and continuous assignment."""
    for n in walk(p.module):
        if n.kind.name in _ALWAYS + ("ContinuousAssign",) and _in_generate(n):
            continue           # one syntax, several elaborated copies (widths may differ): left alone
        if n.kind.name in _ALWAYS:
            blocked = set()
            for m in walk(n):
                if m.kind.name == "AssignmentExpression":      # the target's name, not its index's
                    lhs = re.sub(r"\[[^\[\]]*\]", "", re.sub(r"\[[^\[\]]*\]", "", p.text(m.left)))
                    blocked |= set(re.findall(r"[A-Za-z_]\w*", lhs))
                elif m.kind.name in ("ForVariableDeclaration", "GenvarDeclaration"):
                    blocked |= set(re.findall(r"[A-Za-z_]\w*", p.text(m)))
            yield n, n.statement, blocked
        elif n.kind.name == "ContinuousAssign":
            for asg in n.assignments:
                yield n, asg, set()


def _in_generate(n) -> bool:
    while n is not None:
        if "Generate" in n.kind.name:
            return True
        n = n.parent
    return False


class _Arm:
    """One operator occurrence: its span, operands' text, widths and signedness."""
    def __init__(self, p, b, leaf):
        self.leaf = leaf
        self.a, self.z = p.span(b.syntax)
        self.op = b.op.name
        self.left, self.right = _operand(p, b.left), _operand(p, b.right)
        self.width = int(b.type.bitWidth)                         # the result's width in its context
        self.signed = bool(b.type.isSigned)
        self.opw = int(b.left.type.bitWidth)                      # operand width after context extension
        self.op_signed = bool(b.left.type.isSigned)
        self.amount_w = int(_strip(b.right).type.bitWidth)


def _strip(e):
    while e.kind == ast.ExpressionKind.Conversion:
        e = e.operand
    return e


def _operand(p, e) -> str:
    return p.text(_strip(e)).strip()


def _groups(d: Design) -> list:
    """[(root index, root node, tree, family, [arms], conds)] with two or more pairwise exclusive arms."""
    p = d.parsed()
    ops = {}
    for b in p.ast_nodes(lambda e: isinstance(e, ast.Expression) and e.kind == ast.ExpressionKind.BinaryOp):
        if b.op.name in _FAMILY and b.syntax is not None:
            ops[p.span(b.syntax)] = b
    signals = set(p.symbols(("Net", "Variable")))
    ops = {s: b for s, b in ops.items()        # a constant (parameters only, an index's N-2) is no hardware
           if set(re.findall(r"[A-Za-z_]\w*", _LITERAL.sub(" ", p.code[s[0]:s[1]]))) & signals}
    out = []
    for ri, (root, stmt, blocked) in enumerate(_roots(p)):
        conds, leaves, ok = {"ops": ops}, [], {}
        if stmt.kind.name == "AssignmentExpression":
            tree = _expr(p, stmt.right, (), conds, leaves, blocked, ok)
        else:
            tree = _tree(p, stmt, (), conds, leaves, blocked, ok)
        if len(leaves) < 2:
            continue
        by_fam = {}
        for li, lf in enumerate(leaves):
            if not all(ok.get(step[0], True) for step in lf.path if step[1] == "br"):
                continue
            inside = sorted((s for s in ops if lf.a <= s[0] and s[1] <= lf.z), key=lambda s: (s[0], -s[1]))
            taken = {}
            for s in inside:
                fam = _FAMILY[ops[s].op.name]
                if fam in taken:                         # one operator per family per arm: the outermost
                    continue
                arm = _Arm(p, ops[s], li)
                if not (_reads_ok(p, arm.left, blocked) and _reads_ok(p, arm.right, blocked)):
                    continue
                # a constant operand makes a cheap unit (an incrementer, a wired shift) that the shared one,
                # its operand now a signal, is not: up_down_counter's count +/- 1 shared measured 0.34x
                if any(not set(re.findall(r"[A-Za-z_]\w*", _LITERAL.sub(" ", t))) & signals
                       for t in (arm.left, arm.right)):
                    continue
                taken[fam] = arm
            for fam, arm in taken.items():
                by_fam.setdefault(fam, []).append(arm)
        fams = dict(by_fam)
        if "add" in fams and "sub" in fams:
            fams["addsub"] = fams["add"] + fams["sub"]
        if "shl" in fams and "shr" in fams:
            fams["shift"] = fams["shl"] + fams["shr"]        # left shifts through bit reversal
        for fam, arms in fams.items():
            chosen = []
            for arm in sorted(arms, key=lambda x: x.a):
                if all(_exclusive(leaves[arm.leaf].path, leaves[c.leaf].path) for c in chosen):
                    chosen.append(arm)
            if fam in ("shr", "shift"):
                # a logical shift of a signed operand shifts zeros in above its sign extension: a wider shared
                # unit (or one with a sign fill) would shift sign bits in instead
                chosen = [c for c in chosen if not (c.op == "LogicalShiftRight" and c.op_signed)]
            if len(chosen) >= 2:
                out.append((ri, root, tree, fam, chosen, conds))
                conds["slow"] = conds.get("slow", set())
                spans = [conds[("at", st[0])] for c in chosen for st in leaves[c.leaf].path if st[1] == "br"]
                if any(a <= s[0] and s[1] <= z and ops[s].type.bitWidth >= 4 or
                       a <= s[0] and s[1] <= z and _FAMILY[ops[s].op.name] == "lt" for a, z in spans for s in ops):
                    conds["slow"].add(fam)
    return out


def _exclusive(p1, p2) -> bool:
    for x, y in zip(p1, p2):
        if x != y:
            return x[0] == y[0] and x[1] == "br"
    return False


def _plan(d: Design, fam: str, arms: list) -> dict:
    """Widths, operand assignments per arm, the unit's expression and each arm's replacement."""
    signed_mix = len({a.op_signed for a in arms}) > 1
    if fam == "lt":
        w = max(a.opw for a in arms) + (1 if signed_mix else 0)
        sreg = any(a.op_signed for a in arms)
    elif fam == "shr":
        arith = any(a.op == "ArithmeticShiftRight" and a.op_signed for a in arms)
        w = max(a.width for a in arms) + (1 if arith else 0)
        sreg = arith
    elif fam == "shift":         # one bit wider: the fill (0, or the sign of an arithmetic shift) rides on top
        w, sreg = max(a.width for a in arms) + 1, True
    else:
        w = max(a.width for a in arms)
        sreg = False
    sw = max(a.amount_w for a in arms) if fam in ("shl", "shr", "shift") else w

    def val(a, text):        # the operand as its context extended it
        return f"({text})" if a.op_signed else f"$unsigned({text})"
    sets = []
    for a in arms:
        x, y = a.left, a.right
        if fam == "lt" and a.op in ("GreaterThan", "LessThanEqual"):
            x, y = y, x
        s = {"x": val(a, x), "y": f"$unsigned({y})" if fam in ("shl", "shr", "shift") else val(a, y)}
        if fam == "shift" and _FAMILY[a.op] == "shl":
            s["x"] = f"{{1'b0, {{rev}}({val(a, x)})}}"
        if fam == "addsub":
            s["m"] = "1'b1" if a.op == "Subtract" else "1'b0"
        sets.append(s)
    return {"w": w, "sw": sw, "sreg": sreg, "sets": sets}


def _cost(d: Design, fam: str, arms: list, plan: dict) -> tuple[float, float]:
    """(area before, area after) by the per-PDK operator table: distinct units vs one unit and operand muxes."""
    from .datapath.costs import op_cost, table
    tab = table(d.pdk)
    name = {"add": "add", "sub": "sub", "mul": "mul", "shl": "shl", "shr": "shr", "lt": "lt", "shift": "shr"}
    before, seen = 0.0, set()
    for a in arms:
        key = (a.op, a.left, a.right, a.width)
        if key not in seen:
            seen.add(key)
            f = _FAMILY[a.op]
            before += op_cost(tab, name[f], a.opw if f == "lt" else a.width)[0]
    w = plan["w"]
    unit = "addsub" if fam == "addsub" else name[fam]
    after = op_cost(tab, unit, w)[0]
    for k, kw in (("x", w), ("y", plan["sw"])):
        n = len({s[k] for s in plan["sets"]})
        after += (n - 1) * op_cost(tab, "mux", kw)[0]
    return before, after


def _edits(d: Design, p, g, names) -> tuple[list, str, str]:
    """(replacements, declarations, select block) for one group."""
    ri, root, tree, fam, arms, conds = g
    plan = _plan(d, fam, arms)
    x, y, m, r = (_fresh(d.code + names[0], f"{fam}_{s}") for s in ("x", "y", "m", "r"))
    names[0] += f" {x} {y} {m} {r}"
    w, sw, sg = plan["w"], plan["sw"], "signed " if plan["sreg"] else ""
    decl = f"\n    reg {sg}[{w - 1}:0] {x};\n    reg {'' if fam in ('shl', 'shr', 'shift') else sg}[{sw - 1}:0] {y};\n"
    rev, rl = _fresh(d.code + names[0], "bit_rev"), _fresh(d.code + names[0], f"{fam}_rl")
    if fam == "shift":
        names[0] += f" {rev} {rl}"
        decl += (f"    function [{w - 2}:0] {rev};\n        input [{w - 2}:0] v;\n        integer i;\n"
                 f"        for (i = 0; i < {w - 1}; i = i + 1) {rev}[i] = v[{w - 2} - i];\n    endfunction\n")
        for st in plan["sets"]:
            st["x"] = st["x"].replace("{rev}", rev)
    if fam == "addsub":
        decl += f"    reg {m};\n"
    rw = 1 if fam == "lt" else w
    decl += f"    wire [{rw - 1}:0] {r};   // mux_share: one {fam} unit for {len(arms)} exclusive arms\n"
    by_leaf = {a.leaf: s for a, s in zip(arms, plan["sets"])}

    def sets(s, ind):
        out = f"{ind}{x} = {s['x']};\n{ind}{y} = {s['y']};\n"
        return out + (f"{ind}{m} = {s['m']};\n" if "m" in s else "")

    def emit(t, ind) -> str:
        if t[0] == "leaf":
            return sets(by_leaf[t[1]], ind) if t[1] in by_leaf else ""
        if t[0] == "seq":
            return "".join(emit(c, ind) for c in t[1])
        if t[0] == "if":
            a, b = emit(t[2][0], ind + "    "), emit(t[2][1], ind + "    ")
            if not a and not b:
                return ""
            head = conds[t[1]]
            return f"{ind}{head} begin\n{a}{ind}end\n" + (f"{ind}else begin\n{b}{ind}end\n" if b else "")
        if t[0] == "case":
            body = [(lab, emit(c, ind + "        ")) for lab, c in t[2]]
            if not any(b for _, b in body):
                return ""
            head = conds[t[1]]
            items = "".join(f"{ind}    {lab} begin\n{b}{ind}    end\n" for lab, b in body)
            return f"{ind}{head}\n{items}{ind}endcase\n"
        return ""
    block = f"    always @* begin\n{sets(plan['sets'][0], '        ')}{emit(tree, '        ')}    end\n"
    if fam == "addsub":
        unit = f"{x} + ({y} ^ {{{w}{{{m}}}}}) + {{{w - 1}'d0, {m}}}" if w > 1 else f"{x} + ({y} ^ {m}) + {m}"
    else:
        unit = {"add": f"{x} + {y}", "sub": f"{x} - {y}", "mul": f"{x} * {y}", "shl": f"{x} << {y}",
                "shr": f"{x} >>> {y}", "shift": f"{x} >>> {y}", "lt": f"{x} < {y}"}[fam]
    block += f"    assign {r} = {unit};\n"
    if fam == "shift":
        decl += f"    wire [{w - 2}:0] {rl} = {rev}({r}[{w - 2}:0]);\n"
    reps = []
    for a in arms:
        if fam == "lt":
            new = f"(~{r})" if a.op in ("LessThanEqual", "GreaterThanEqual") else f"({r})"
        else:
            res = rl if fam == "shift" and _FAMILY[a.op] == "shl" else r
            new = res if a.width == (w - 1 if res == rl else w) else f"{res}[{a.width - 1}:0]"
            new = f"$signed({new})" if a.signed else f"({new})"
        reps.append((a.a, a.z, new))
    return reps, decl, block


def _selected(d: Design, params) -> list:
    gs = _groups(d)
    if params.get("all"):
        chosen, spans = [], []
        for g in gs:
            merged = {"add": "addsub", "sub": "addsub", "shl": "shift", "shr": "shift"}.get(g[3])
            if merged and any(h[0] == g[0] and h[3] == merged for h in gs):
                continue
            ss = [(a.a, a.z) for a in g[4]]
            if any(not (z <= a2 or z2 <= a) for a, z in ss for a2, z2 in spans):
                continue
            chosen.append(g)
            spans += ss
        return chosen
    return [g for g in gs if g[0] == params.get("root") and g[3] == params.get("family")]


class MuxShare(Transform):
    name = "mux_share"
    summary = "one wide unit for the exclusive arms of a case/if/?:, its operands selected first"

    def options(self, d: Design) -> list[Option]:
        out, paying = [], 0
        for g in _groups(d):
            ri, root, _, fam, arms, _ = g
            before, after = _cost(d, fam, arms, _plan(d, fam, arms))
            # a select that waits on a wide compare or sum puts it before the unit, on the critical path: only a
            # large area saving pays for that (fixed_point_adder's |a-b| by a > b: 0.72x area, 1.8x delay)
            if after >= before * (0.5 if fam in g[5].get("slow", ()) else 1.0):
                continue
            paying += 1
            line = d.code.count("\n", 0, d.parsed().span(root)[0]) + 1
            unit = {"addsub": "adder-subtractor", "add": "adder", "sub": "subtractor", "mul": "multiplier",
                    "shl": "left shifter", "shr": "right shifter", "lt": "comparator",
                    "shift": "right shifter (left shifts by bit reversal)"}[fam]
            out.append(self.option(f"line {line} {fam}", f"share one {unit} among {len(arms)} exclusive arms of "
                                   f"line {line}, operands selected first (est. area {after / before:.2f}x)",
                                   root=ri, family=fam))
        if paying > 1:
            out.append(self.option("all", "share one unit per operator family among the exclusive arms of "
                                   "every block, operands selected first", all=True))
        return out

    def apply(self, d: Design, o: Option) -> str:
        gs = _selected(d, o.params)
        if not gs:
            raise TransformError(f"no exclusive {o.params.get('family')} arms at block {o.params.get('root')}")
        p = d.parsed()
        names, reps, decls, blocks = [""], [], "", {}
        for g in gs:
            r, dc, bl = _edits(d, p, g, names)
            reps += r
            decls += dc
            at = p.span(g[1])[0]
            blocks[at] = blocks.get(at, "") + bl
        at = _member_start(p, 0)
        edits = [(at, at, decls)] + [(a, a, b.lstrip() + "\n    ") for a, b in blocks.items()] + reps
        for root in {p.span(g[1])[0]: g[1] for g in gs}.values():
            # a combinational block with its own event list must now wake on the shared result too
            st = getattr(root, "statement", None)
            if st is not None and st.kind.name == "TimingControlStatement":
                ev = p.text(st.timingControl)
                if "edge" not in ev and "*" not in ev:
                    edits.append((*p.span(st.timingControl), "@*"))
        return splice(d.code, edits)


register(MuxShare())
