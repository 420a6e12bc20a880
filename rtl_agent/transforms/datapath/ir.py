"""Datapath terms: the small typed IR between the parse tree, the e-graph and the printed Verilog.

A term is a tuple `(op, width, *args)`; equal tuples are the same node, so structural sharing is free.
Leaves: ("var", w, name), ("const", w, value). Every operator carries its result width as Yosys cells do;
unsigned semantics: an operand narrower than the operator is zero-extended, a wider one truncated (only the
low bits of add/sub/mul/and/or/xor/not/shl/mux depend on the low bits of their operands, so that is exact);
`shr` shifts its operand truncated to w, `sra` the same as a signed value. Comparisons (`eq`, `lt`: zero-extend to the wider operand; `slt`:
signed, operands of one width) are 1 bit. `slice(w, a, lo)` is a[lo+w-1:lo]; `concat(w, hi, lo)`;
`zext`/`sext(w, a)` widen; `mux(w, s, t, f)` has a 1-bit select; `max`/`min(w, a, b)` are unsigned
compare-and-select, printed as a comparison and a mux; `addsub(w, m, a, b)` is m ? a - b : a + b (one
adder-subtractor after synthesis: Yosys' alumacc merges an add and a subtract of the same operands).

    evaluate(term, env)              the term's value (Python int) for input values env {name: int}
    Printer(prefix, taken).lines(roots)   Verilog wire declarations + the root expressions
"""
from __future__ import annotations

BINARY = ("add", "sub", "mul", "and", "or", "xor")
SHIFTS = ("shl", "shr")
COMPARE = ("eq", "lt", "slt")
REDUCE = ("redor", "redand", "redxor")


def width(t) -> int:
    return t[1]


def mask(w: int) -> int:
    return (1 << w) - 1


def kids(t) -> list:
    """The sub-terms of t (not its integer or name parameters)."""
    return [a for a in t[2:] if isinstance(a, tuple)]


def nodes(roots) -> list:
    """Every distinct node under roots, children before parents."""
    return postorder(roots, lambda n: list(reversed(kids(n))))


def postorder(roots, children) -> list:
    """Every node reachable from roots through children(n), each after its children; no recursion (deep
    chains would pass Python's limit)."""
    out, seen = [], set()
    for r in roots:
        stack = [(r, False)]
        while stack:
            n, done = stack.pop()
            if n in seen:
                continue
            if done:
                seen.add(n)
                out.append(n)
                continue
            stack.append((n, True))
            stack.extend((k, False) for k in children(n) if k not in seen)
    return out


def _signed(v: int, w: int) -> int:
    return v - (1 << w) if w and v >> (w - 1) & 1 else v


def _op(t, v, env):
    op, w = t[0], t[1]
    m = mask(w)
    if op == "var":
        return env[t[2]] & m
    if op == "const":
        return t[2] & m
    a = v[t[2]] if isinstance(t[2], tuple) else None
    if op in BINARY or op in ("max", "min"):
        b = v[t[3]]
        f = {"add": a + b, "sub": a - b, "mul": a * b, "and": a & b, "or": a | b, "xor": a ^ b,
             "max": max(a & m, b & m), "min": min(a & m, b & m)}
        return f[op] & m
    if op == "not":
        return ~a & m
    if op == "addsub":
        return (v[t[3]] - v[t[4]] if a & 1 else v[t[3]] + v[t[4]]) & m
    if op == "shl":
        return (a << v[t[3]]) & m if v[t[3]] < 4096 else 0
    if op == "shr":
        return (a & m) >> v[t[3]]
    if op == "sra":
        return (_signed(a & m, w) >> min(v[t[3]], w)) & m
    if op == "mux":
        return (v[t[3]] if a & 1 else v[t[4]]) & m
    if op == "eq":
        return int(a == v[t[3]])
    if op == "lt":
        return int(a < v[t[3]])
    if op == "slt":
        wa = width(t[2])
        return int(_signed(a, wa) < _signed(v[t[3]], wa))
    if op == "concat":
        return ((a << width(t[3])) | v[t[3]]) & m
    if op == "slice":
        return (a >> t[3]) & m
    if op == "zext":
        return a & m
    if op == "sext":
        return _signed(a, width(t[2])) & m
    if op == "redor":
        return int(a != 0)
    if op == "redand":
        return int(a == mask(width(t[2])))
    if op == "redxor":
        return bin(a).count("1") & 1
    raise ValueError(f"unknown datapath op {op}")


def evaluate_all(roots, env: dict) -> list:
    """Values of roots for inputs env (each node computed once)."""
    v = {}
    for n in nodes(roots):
        v[n] = _op(n, v, env)
    return [v[r] for r in roots]


def inputs(roots) -> dict:
    """{name: width} of the variables the terms read."""
    return {n[2]: n[1] for n in nodes(roots) if n[0] == "var"}


def fit_w(t, w: int):
    return ("slice", w, t, 0) if t[1] > w else ("zext", w, t)


def const_text(v: int, w: int) -> str:
    return f"{w}'d{v & mask(w)}"


class Printer:
    """Verilog for a set of root terms: one wire per shared or width-sensitive node, the rest inline.

    Inline text is used only where Verilog's context-determined widths give the term's own width (the
    operator's width equals every operand's printed width); anything else gets a wire of exactly its width."""

    def __init__(self, prefix: str, taken: set, signed=()):
        self.prefix, self.taken, self.signed = prefix, set(taken), set(signed)
        self.decls, self.names, self.count = [], {}, 0

    def lines(self, roots) -> tuple[list, list]:
        uses = {}
        for n in nodes(roots):
            for k in kids(n):
                uses[k] = uses.get(k, 0) + 1
        self.shared = {n for n, c in uses.items() if c > 1 and n[0] not in ("var", "const")}
        exprs = [self.expr(r)[0] for r in roots]
        return self.decls, exprs

    def name(self, t) -> str:
        """t as a name: a variable, or a wire holding it (an x/z literal leaf too)."""
        if t[0] == "var" and "'" not in t[2]:
            return t[2]
        if t in self.names:
            return self.names[t]
        text = self.expr(t, top=True)[0]
        while True:
            self.count += 1
            nm = f"{self.prefix}{self.count}"
            if nm not in self.taken:
                break
        rng = f"[{t[1] - 1}:0] " if t[1] > 1 else ""
        self.decls.append(f"wire {rng}{nm} = {text};")
        self.names[t] = nm
        return nm

    def operand(self, t, w: int) -> str:
        """t printed where the context width is w: inline when its printed width is exactly w."""
        if t[0] == "const":
            return const_text(t[2], t[1]) if t[1] == w else const_text(t[2], min(t[1], w))
        if t[0] == "var":
            return self.leaf(t)
        if t in self.shared or t in self.names:
            return self.name(t) if t[1] <= w else f"{self.name(t)}[{w - 1}:0]"
        text, tw = self.expr(t)
        # a signed shift inline would turn logical: an unsigned operand anywhere in the context makes the whole
        # expression unsigned (Verilog's signedness rule), so it always gets a wire of its own
        if tw == w == t[1] and t[0] != "sra":
            return f"({text})"
        return self.name(t) if t[1] <= w else f"{self.name(t)}[{w - 1}:0]"

    def self_det(self, t) -> str:
        """t where its width is self-determined (concat, comparison, select): a name or a sized constant."""
        if t[0] == "var":
            return self.leaf(t)
        return const_text(t[2], t[1]) if t[0] == "const" else self.name(t)

    def leaf(self, t) -> str:
        """A variable as an unsigned operand (a signed one would sign-extend in a wider context)."""
        return f"$unsigned({t[2]})" if t[2] in self.signed else t[2]

    def expr(self, t, top=False) -> tuple[str, int]:
        """(text, printed width) of t's own operator over its operands."""
        if (t in self.shared or t in self.names) and not top:
            return self.name(t), t[1]
        op, w = t[0], t[1]
        if op == "var":
            return self.leaf(t), w
        if op == "const":
            return const_text(t[2], w), w
        sym = {"add": "+", "sub": "-", "mul": "*", "and": "&", "or": "|", "xor": "^"}
        if op in sym:
            return f"{self.operand(t[2], w)} {sym[op]} {self.operand(t[3], w)}", w
        if op == "not":
            return f"~{self.operand(t[2], w)}", w
        if op == "shl":
            return f"{self.operand(t[2], w)} << {self.self_det(t[3])}", w
        if op == "shr":
            a = t[2]
            base = self.operand(a, w) if a[1] <= w else f"{self.name(a)}[{w - 1}:0]"
            if a[0] == "const":
                base = const_text(a[2], min(a[1], w))
            return f"{base} >> {self.self_det(t[3])}", w
        if op == "sra":
            return f"$signed({self.name(t[2]) if t[2][1] == w else self.name(fit_w(t[2], w))}) >>> {self.self_det(t[3])}", w
        if op == "mux":
            return f"{self.self_det(t[2])} ? {self.operand(t[3], w)} : {self.operand(t[4], w)}", w
        if op == "addsub":
            a, b = self.operand(t[3], w), self.operand(t[4], w)
            return f"{self.self_det(t[2])} ? {a} - {b} : {a} + {b}", w
        if op in ("max", "min"):        # each operand is printed twice: a name, not a copy of its logic
            a, b = (self.leaf(k) if k[0] == "var" else self.name(k) for k in t[2:4])
            return (f"({a} > {b}) ? {a} : {b}" if op == "max" else f"({a} < {b}) ? {a} : {b}"), w
        if op in ("eq", "lt"):
            return f"{self.self_det(t[2])} {'==' if op == 'eq' else '<'} {self.self_det(t[3])}", 1
        if op == "slt":
            return f"$signed({self.self_det(t[2])}) < $signed({self.self_det(t[3])})", 1
        if op == "concat":
            return f"{{{self.self_det(t[2])}, {self.self_det(t[3])}}}", w
        if op == "slice":
            return self._slice(t), w
        if op in ("zext", "sext"):
            a, k = t[2], w - t[2][1]
            fill = f"{k}'d0" if op == "zext" else f"{{{k}{{{self._bit(a, a[1] - 1)}}}}}"
            return f"{{{fill}, {self.self_det(a)}}}", w
        if op in REDUCE:
            return f"{ {'redor': '|', 'redand': '&', 'redxor': '^'}[op]}{self.self_det(t[2])}", 1
        raise ValueError(f"cannot print datapath op {op}")

    def _bit(self, a, i) -> str:
        if a[0] == "const":
            return f"1'b{(a[2] >> i) & 1}"
        return f"{self.name(a)}[{i}]" if a[1] > 1 else self.name(a)

    def _slice(self, t) -> str:
        a, lo, w = t[2], t[3], t[1]
        if a[0] == "const":
            return const_text(a[2] >> lo, w)
        if a[1] == 1:
            return self.name(a)
        return self._bit(a, lo) if w == 1 else f"{self.name(a)}[{lo + w - 1}:{lo}]"
