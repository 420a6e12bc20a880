"""Datapath terms in an egglog e-graph: width-carrying constructors, a width analysis, guarded rewrite rules,
bounded saturation and extraction by a cost model.

    r = saturate(roots, node_cap=4000, max_iter=30)    Result: the e-graph, its root handles, run statistics
    terms = extract(r, costs.Model(pdk, "area"))       one best term per root (ir tuples); ValueError when
                                                        egglog's extractor fails (it panics on some graphs)

Every rule keeps the result width of what it rewrites; `width` is a function without a merge, so a rule that
would union terms of different widths makes egglog raise (a soundness alarm beside the flow's proof). Rules
that can make a chain explode (commutativity, associativity) run under a back-off scheduler with a match limit,
one iteration at a time, until nothing changes, the node cap or the iteration cap. The caps count work, not
time, so a design gets the same e-graph (and the same options) under any machine load.
"""
from __future__ import annotations

import time
from dataclasses import dataclass, field

from egglog import (EGraph, Expr, String, StringLike, back_off, eq, function, i64, i64Like, rewrite, rule,
                    ruleset, run, set_, union, var, vars_)
from egglog.deconstruct import get_callable_args, get_callable_fn, get_literal_value


class BV(Expr):
    """A bit-vector term."""


@function
def Var(name: StringLike, w: i64Like) -> BV: ...
@function
def Const(v: i64Like, w: i64Like) -> BV: ...
@function
def Add(w: i64Like, a: BV, b: BV) -> BV: ...
@function
def Sub(w: i64Like, a: BV, b: BV) -> BV: ...
@function
def Mul(w: i64Like, a: BV, b: BV) -> BV: ...
@function
def And(w: i64Like, a: BV, b: BV) -> BV: ...
@function
def Or(w: i64Like, a: BV, b: BV) -> BV: ...
@function
def Xor(w: i64Like, a: BV, b: BV) -> BV: ...
@function
def Max(w: i64Like, a: BV, b: BV) -> BV: ...
@function
def Min(w: i64Like, a: BV, b: BV) -> BV: ...
@function
def Shl(w: i64Like, a: BV, k: BV) -> BV: ...
@function
def Shr(w: i64Like, a: BV, k: BV) -> BV: ...
@function
def Sra(w: i64Like, a: BV, k: BV) -> BV: ...
@function
def Not(w: i64Like, a: BV) -> BV: ...
@function
def AddSub(w: i64Like, m: BV, a: BV, b: BV) -> BV: ...
@function
def Mux(w: i64Like, s: BV, t: BV, f: BV) -> BV: ...
@function
def Eq(a: BV, b: BV) -> BV: ...
@function
def Lt(a: BV, b: BV) -> BV: ...
@function
def Slt(a: BV, b: BV) -> BV: ...
@function
def Concat(w: i64Like, hi: BV, lo: BV) -> BV: ...
@function
def Slice(w: i64Like, a: BV, lo: i64Like) -> BV: ...
@function
def Zext(w: i64Like, a: BV) -> BV: ...
@function
def Sext(w: i64Like, a: BV) -> BV: ...
@function
def RedOr(a: BV) -> BV: ...
@function
def RedAnd(a: BV) -> BV: ...
@function
def RedXor(a: BV) -> BV: ...
@function
def width(e: BV) -> i64: ...


W2 = {"add": Add, "sub": Sub, "mul": Mul, "and": And, "or": Or, "xor": Xor, "max": Max, "min": Min,
      "shl": Shl, "shr": Shr, "sra": Sra}
W1 = {"not": Not, "zext": Zext, "sext": Sext}
CMP = {"eq": Eq, "lt": Lt, "slt": Slt}
RED = {"redor": RedOr, "redand": RedAnd, "redxor": RedXor}
OP_OF = {f: op for d in (W2, W1, CMP, RED) for op, f in d.items()}
OP_OF.update({Var: "var", Const: "const", Mux: "mux", Concat: "concat", Slice: "slice", AddSub: "addsub"})

w, w1, w2, v1, v2, lo = vars_("w w1 w2 v1 v2 lo", i64)
a, b, c, d, s, t, x, y = vars_("a b c d s t x y", BV)
nm = var("nm", String)


def _width_rules():
    out = [rule(Var(nm, w)).then(set_(width(Var(nm, w))).to(w)),
           rule(Const(v1, w)).then(set_(width(Const(v1, w))).to(w)),
           rule(Mux(w, s, a, b)).then(set_(width(Mux(w, s, a, b))).to(w)),
           rule(AddSub(w, s, a, b)).then(set_(width(AddSub(w, s, a, b))).to(w)),
           rule(Concat(w, a, b)).then(set_(width(Concat(w, a, b))).to(w)),
           rule(Slice(w, a, lo)).then(set_(width(Slice(w, a, lo))).to(w))]
    out += [rule(f(w, a, b)).then(set_(width(f(w, a, b))).to(w)) for f in W2.values()]
    out += [rule(f(w, a)).then(set_(width(f(w, a))).to(w)) for f in W1.values()]
    out += [rule(f(a, b)).then(set_(width(f(a, b))).to(i64(1))) for f in CMP.values()]
    out += [rule(f(a)).then(set_(width(f(a))).to(i64(1))) for f in RED.values()]
    return ruleset(*out)


def _share_rules():
    """Mux hoisting: two operators of one kind under a mux become one operator over muxed operands."""
    out = []
    for f in (Add, Sub, Mul, And, Or, Xor, Shl):
        out.append(rewrite(Mux(w, s, f(w1, a, b), f(w2, c, d))).to(f(w, Mux(w, s, a, c), Mux(w, s, b, d)),
                                                                   w1 >= w, w2 >= w))
    out.append(rewrite(Mux(w, s, Shr(w, a, b), Shr(w, c, d))).to(Shr(w, Mux(w, s, a, c), Mux(w, s, b, d))))
    out.append(rule(eq(x).to(Mux(w, s, Sra(w, a, b), Sra(w, c, d))), eq(width(a)).to(w), eq(width(c)).to(w)).then(
        union(x).with_(Sra(w, Mux(w, s, a, c), Mux(w, s, b, d)))))
    for f in (Lt, Eq):
        out.append(rule(eq(x).to(Mux(i64(1), s, f(a, b), f(c, d))), eq(width(a)).to(w), eq(width(b)).to(w),
                        eq(width(c)).to(w), eq(width(d)).to(w))
                   .then(union(x).with_(f(Mux(w, s, a, c), Mux(w, s, b, d)))))
    # a mux whose arms agree is its arm (when the arm already has the mux's width)
    out.append(rule(eq(x).to(Mux(w, s, a, a)), eq(width(a)).to(w)).then(union(x).with_(a)))
    # priority chains: move an arm next to the one it can share with
    out.append(rewrite(Mux(w, s, a, Mux(w2, t, b, c))).to(Mux(w, Or(i64(1), s, t), Mux(w, s, a, b), c), w2 >= w))
    out.append(rewrite(Mux(w, s, a, Mux(w2, t, b, c))).to(
        Mux(w, Or(i64(1), s, Not(i64(1), t)), Mux(w, s, a, c), b), w2 >= w))
    out.append(rewrite(Mux(w, Not(i64(1), s), a, b)).to(Mux(w, s, b, a)))
    # nested selects of the same two values collapse into one select with a combined condition
    out.append(rule(eq(x).to(Mux(w, s, Mux(w2, t, a, b), b)), eq(w2).to(w), eq(width(b)).to(w)).then(
        union(x).with_(Mux(w, And(i64(1), s, t), a, b))))
    out.append(rule(eq(x).to(Mux(w, s, a, Mux(w2, t, a, b))), eq(w2).to(w), eq(width(a)).to(w)).then(
        union(x).with_(Mux(w, Or(i64(1), s, t), a, b))))
    # an add and a subtract under a mux: one adder-subtractor over muxed operands
    one, zero = Const(1, i64(1)), Const(0, i64(1))
    out.append(rewrite(Mux(w, s, Add(w1, a, b), Sub(w2, c, d))).to(
        AddSub(w, Not(i64(1), s), Mux(w, s, a, c), Mux(w, s, b, d)), w1 >= w, w2 >= w))
    out.append(rewrite(Mux(w, s, Sub(w1, a, b), Add(w2, c, d))).to(
        AddSub(w, s, Mux(w, s, a, c), Mux(w, s, b, d)), w1 >= w, w2 >= w))
    out.append(rewrite(Mux(w, s, AddSub(w1, t, a, b), Add(w2, c, d))).to(
        AddSub(w, Mux(i64(1), s, t, zero), Mux(w, s, a, c), Mux(w, s, b, d)), w1 >= w, w2 >= w))
    out.append(rewrite(Mux(w, s, AddSub(w1, t, a, b), Sub(w2, c, d))).to(
        AddSub(w, Mux(i64(1), s, t, one), Mux(w, s, a, c), Mux(w, s, b, d)), w1 >= w, w2 >= w))
    out.append(rewrite(Mux(w, s, Add(w1, a, b), AddSub(w2, t, c, d))).to(
        AddSub(w, Mux(i64(1), s, zero, t), Mux(w, s, a, c), Mux(w, s, b, d)), w1 >= w, w2 >= w))
    out.append(rewrite(Mux(w, s, Sub(w1, a, b), AddSub(w2, t, c, d))).to(
        AddSub(w, Mux(i64(1), s, one, t), Mux(w, s, a, c), Mux(w, s, b, d)), w1 >= w, w2 >= w))
    # one arm is the other plus something: add a muxed operand (an AND with the select), no second adder
    out.append(rule(eq(x).to(Mux(w, s, Add(w1, a, b), a)), eq(width(a)).to(w), w1 >= w).then(
        union(x).with_(Add(w, a, Mux(w, s, b, Const(0, w))))))
    out.append(rule(eq(x).to(Mux(w, s, Sub(w1, a, b), a)), eq(width(a)).to(w), w1 >= w).then(
        union(x).with_(Sub(w, a, Mux(w, s, b, Const(0, w))))))
    return out


def _algebra_rules():
    """Commutativity, associativity with width guards, compare-and-select, folding, strength reduction."""
    out = []
    for f in (Add, Mul, And, Or, Xor, Max, Min):
        out.append(rewrite(f(w, a, b)).to(f(w, b, a)))
        # the inner operator must not truncate: a 4-bit (a + b) inside an 8-bit add is not re-associable;
        # a wider inner one is, for operators whose low bits depend only on low bits (not max/min)
        guard = (w1 >= w) if f not in (Max, Min) else eq(w1).to(w)
        out.append(rewrite(f(w, f(w1, a, b), c)).to(f(w, a, f(w, b, c)), guard))
        out.append(rewrite(f(w, a, f(w1, b, c))).to(f(w, f(w, a, b), c), guard))
    out.append(rewrite(Eq(a, b)).to(Eq(b, a)))
    out += _width_change_rules()
    # compare-and-select is max/min when the operands have the select's width
    for arm_t, arm_f, g in ((b, a, Max), (a, b, Min)):
        out.append(rule(eq(x).to(Mux(w, Lt(a, b), arm_t, arm_f)), eq(width(a)).to(w), eq(width(b)).to(w))
                   .then(union(x).with_(g(w, a, b))))
    out += [
        rewrite(Add(w, a, Const(0, w1))).to(a, eq(width(a)).to(w)),
        rewrite(Sub(w, a, Const(0, w1))).to(a, eq(width(a)).to(w)),
        rewrite(Or(w, a, Const(0, w1))).to(a, eq(width(a)).to(w)),
        rewrite(Xor(w, a, Const(0, w1))).to(a, eq(width(a)).to(w)),
        rewrite(And(w, a, Const(0, w1))).to(Const(0, w)),
        rewrite(Mul(w, a, Const(0, w1))).to(Const(0, w)),
        rewrite(Mul(w, a, Const(1, w1))).to(a, eq(width(a)).to(w)),
        rewrite(Sub(w, a, a)).to(Const(0, w)),
        rewrite(Xor(w, a, a)).to(Const(0, w)),
        rewrite(Mux(w, Const(1, i64(1)), a, b)).to(a, eq(width(a)).to(w)),
        rewrite(Mux(w, Const(0, i64(1)), a, b)).to(b, eq(width(b)).to(w)),
        rewrite(Mux(i64(1), s, Const(1, i64(1)), Const(0, i64(1)))).to(s),
        rewrite(Add(w, Const(v1, w1), Const(v2, w2))).to(Const((v1 + v2) & ((i64(1) << w) - 1), w),
                                                        w < 62, w1 <= w, w2 <= w),
        rewrite(Sub(w, Const(v1, w1), Const(v2, w2))).to(Const((v1 - v2) & ((i64(1) << w) - 1), w),
                                                        w < 62, w1 <= w, w2 <= w),
        rewrite(Eq(Const(v1, w1), Const(v2, w2))).to(Const(i64(1), i64(1)), eq(v1).to(v2)),
    ]
    # strength reduction: multiply by a power of two is a shift
    for k in range(1, 31):
        out.append(rewrite(Mul(w, a, Const(1 << k, w1))).to(Shl(w, a, Const(k, i64(6)))))
    return out


def _width_change_rules():
    """Low-bit operators read only the low bits of their operands: a zero-extension to at least their width
    is implicit, and the low bits of a wider operator are the operator at the narrower width; a mux of two
    slices at one position is a slice of a mux; a < b is the borrow of a one-bit-wider subtraction."""
    out = []
    for f in (Add, Sub, Mul, And, Or, Xor):
        out.append(rewrite(f(w, Zext(w1, a), b)).to(f(w, a, b), w1 >= w))
        out.append(rewrite(f(w, a, Zext(w1, b))).to(f(w, a, b), w1 >= w))
        out.append(rewrite(Slice(w, f(w1, a, b), i64(0))).to(f(w, a, b), w1 >= w))
    out.append(rewrite(Mux(w, s, Zext(w1, a), b)).to(Mux(w, s, a, b), w1 >= w))
    out.append(rewrite(Mux(w, s, a, Zext(w1, b))).to(Mux(w, s, a, b), w1 >= w))
    out.append(rewrite(Slice(w, Mux(w1, s, a, b), i64(0))).to(Mux(w, s, a, b), w1 >= w))
    out.append(rule(eq(x).to(Mux(w, s, Slice(w, a, lo), Slice(w, b, lo))), eq(width(a)).to(w1),
                    eq(width(b)).to(w1)).then(union(x).with_(Slice(w, Mux(w1, s, a, b), lo))))
    out.append(rule(eq(x).to(Mux(w, s, Concat(w, a, b), Concat(w, c, d))), eq(width(b)).to(w1),
                    eq(width(d)).to(w1)).then(union(x).with_(Concat(w, Mux(w - w1, s, a, c), Mux(w1, s, b, d)))))
    out.append(rewrite(Eq(Zext(w, a), b)).to(Eq(a, b)))
    out.append(rule(eq(x).to(Eq(Sub(w, a, b), Const(0, w1))), eq(width(a)).to(w), eq(width(b)).to(w)).then(
        union(x).with_(Eq(a, b))))
    out.append(rule(eq(x).to(Lt(a, b)), eq(width(a)).to(w), eq(width(b)).to(w), w < 62).then(
        union(x).with_(Slice(i64(1), Sub(w + 1, Zext(w + 1, a), Zext(w + 1, b)), w))))
    return out


def to_egg(term, memo):
    if term in memo:
        return memo[term]
    op, wd = term[0], term[1]
    if op == "var":
        e = Var(term[2], wd)
    elif op == "const":
        e = Const(term[2], wd)
    elif op in W2:
        e = W2[op](wd, to_egg(term[2], memo), to_egg(term[3], memo))
    elif op in W1:
        e = W1[op](wd, to_egg(term[2], memo))
    elif op in CMP:
        e = CMP[op](to_egg(term[2], memo), to_egg(term[3], memo))
    elif op in RED:
        e = RED[op](to_egg(term[2], memo))
    elif op == "mux":
        e = Mux(wd, *(to_egg(k, memo) for k in term[2:5]))
    elif op == "addsub":
        e = AddSub(wd, *(to_egg(k, memo) for k in term[2:5]))
    elif op == "concat":
        e = Concat(wd, to_egg(term[2], memo), to_egg(term[3], memo))
    elif op == "slice":
        e = Slice(wd, to_egg(term[2], memo), term[3])
    else:
        raise ValueError(f"no e-graph constructor for {op}")
    memo[term] = e
    return e


def from_egg(e):
    """An extracted egglog term back to an ir tuple."""
    fn = get_callable_fn(e)
    op = OP_OF[fn]
    args = list(get_callable_args(e))
    if op == "var":
        return ("var", int(get_literal_value(args[1])), str(get_literal_value(args[0])))
    if op == "const":
        return ("const", int(get_literal_value(args[1])), int(get_literal_value(args[0])))
    if op in CMP or op in RED:
        return (op, 1, *(from_egg(k) for k in args))
    wd = int(get_literal_value(args[0]))
    if op == "slice":
        return ("slice", wd, from_egg(args[1]), int(get_literal_value(args[2])))
    return (op, wd, *(from_egg(k) for k in args[1:]))


@dataclass
class Result:
    egraph: object
    roots: list
    nodes: int = 0
    iterations: int = 0
    seconds: float = 0.0
    stopped: str = "saturated"
    notes: list = field(default_factory=list)


RULES = None
EXTRACT_ERRORS = (ValueError,)


def _rulesets():
    global RULES
    if RULES is None:
        RULES = (_width_rules(), ruleset(*_share_rules()), ruleset(*_algebra_rules()))
    return RULES


def size(eg) -> int:
    return sum(n for f, n in eg.all_function_sizes() if f is not width)


def saturate(roots, node_cap: int = 4000, match_limit: int = 200, max_iter: int = 30,
             algebra: bool = True) -> Result:
    """Load roots and apply the rules until saturation or a work cap (node_cap e-nodes, max_iter iterations).
    Raises ValueError when a rule tried to merge terms of different widths (the width analysis' alarm)."""
    widths, share, alg = _rulesets()
    t0 = time.monotonic()
    eg = EGraph()
    memo = {}
    handles = [eg.let(f"r{i}", to_egg(r, memo)) for i, r in enumerate(roots)]
    res = Result(eg, handles)
    try:
        eg.run(run(widths).saturate())
        before = (size(eg), eg.function_size(width))
        for it in range(max_iter):
            sched = run(share, scheduler=back_off(match_limit=match_limit))
            if algebra:
                sched = sched + run(alg, scheduler=back_off(match_limit=match_limit))
            rep = eg.run(sched + run(widths).saturate())
            res.iterations = it + 1
            res.nodes = size(eg)
            # egglog reports an update whenever a rule re-derives a known term, so the loop stops on the e-graph
            # itself: an iteration that adds no e-node and merges no e-class (width has one row per e-class)
            # leaves the next one (a fresh back-off scheduler) the same graph; on the project's designs and RTLLM
            # none changed again within 30 iterations after such a one
            now = (res.nodes, eg.function_size(width))
            if not rep.updated or now == before:
                break
            before = now
            if res.nodes > node_cap:
                res.stopped = f"node cap ({res.nodes} > {node_cap})"
                break
        else:
            res.stopped = f"iteration cap ({max_iter})"
    except Exception as e:          # noqa: BLE001 - egglog raises its own types (and Rust panics)
        if "merge" in str(e).lower():
            raise ValueError(f"unsound rewrite caught by the width analysis: {str(e)[:200]}") from e
        raise
    res.seconds = time.monotonic() - t0
    return res


def extract(res: Result, cost) -> list:
    """The best term of each root under an egglog cost model (costs.Model), each root extracted on its own;
    structure shared between roots is recovered when printing (equal terms are one node)."""
    eg = res.egraph
    out = []
    for h in res.roots:
        try:
            best = eg.extract(h, cost_model=cost)
        except BaseException as e:     # noqa: BLE001 - a Rust panic (pyo3 PanicException) is a BaseException
            if isinstance(e, (KeyboardInterrupt, SystemExit)):
                raise
            raise ValueError(f"extraction failed: {str(e)[:200]}") from None
        out.append(from_egg(best))
    return out
