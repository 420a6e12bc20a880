"""resynth's `flags` encoding: every flip-flop a history flag whose next value depends on the data inputs and at
most one other flag.

A sequence detector written as an FSM (state = how much of the pattern was seen) is cheapest as flags such as
`a <= x; b <= a & ~x; c <= b & ~x; d <= c & x` (the shift-and form): as many flip-flops as a one-hot code
would need less one, but each next state is one gate and the output is read from one flag. Binary, gray and
one-hot codes of the minimised machine do not give that form, and synthesis does not find it.

The flags are found on the minimised machine (resynth.Machine), by partition pairs: a set B of states is a
flag of parent P (or of no parent) when, for each value of P and each input vector, the next states all lie
in B or all outside it. For a parent P the finest such sets are the connected blocks of the images
{nxt[s][v] : [s in P] = x}; each block is a candidate flag, and so are the unions that copy P (the states
entered from P's states) or one input bit, where no block straddles them (a shift register's flags);
candidates are found breadth first from the input-only ones. A greedy choice then keeps the fewest flags
(with their parents) that tell every pair of states apart (among the sets of that size, the one with the
fewest literals), and a flag read inverted is stored inverted, reset to 1, where that saves inverters. Each next-state and output bit is written as a
minimised sum of products over the fewest flags and input bits it needs, codes no reachable state has being
don't-cares (the prover checks the rewrite).
"""
from __future__ import annotations

from itertools import combinations
from math import comb

from .base import TransformError

MAX_K = 32              # states after merging
MAX_CANDIDATES = 256
MAX_SUPPORT = 8        # variables of one function minimised (Quine-McCluskey); beyond, its minterms
MAX_TRIES = 400        # flag sets of the greedy size tried for the fewest literals


def _blocks(m, parent) -> list:
    """Sets of states a flag of this parent (None: the inputs alone) may be: the finest ones first."""
    k, nvec = m.k, len(m.nxt[0])
    root = list(range(k))

    def find(x):
        while root[x] != x:
            root[x] = root[root[x]]
            x = root[x]
        return x
    images = {}
    for s in range(k):
        for v in range(nvec):
            images.setdefault((parent is not None and s in parent, v), []).append(m.nxt[s][v])
    for img in images.values():
        for t in img[1:]:
            root[find(t)] = find(img[0])
    out = {}
    for s in range(k):
        out.setdefault(find(s), set()).add(s)
    blocks = [frozenset(b) for b in out.values()]
    # and the unions that copy the parent or one input bit (a shift register's flags are such unions):
    # the states entered from the parent's states, or on vectors with bit j set, where no block straddles
    unions = [frozenset(t for (x, _), img in images.items() if x for t in img)] if parent is not None else []
    unions += [frozenset(t for (_, v), img in images.items() if v >> j & 1 for t in img)
               for j in range(max(1, (nvec - 1).bit_length()))]
    whole = [u for u in unions if all(b <= u or not b & u for b in blocks)]
    return blocks + [u for u in whole if u not in blocks]


def _norm(b: frozenset, k: int) -> frozenset | None:
    """The flag that is 0 in the reset state (a set and its complement are one flag); None when trivial."""
    if 0 in b:
        b = frozenset(range(k)) - b
    return b if 0 < len(b) < k else None


def candidates(m) -> dict:
    """{flag: its parent (None: set by the inputs alone)}, in breadth-first order."""
    found, frontier = {}, [None]
    while frontier and len(found) < MAX_CANDIDATES:
        new = []
        for p in frontier:
            for b in _blocks(m, p):
                b = _norm(b, m.k)
                if b is not None and b not in found:
                    found[b] = p
                    new.append(b)
        frontier = new
    return found


def choose(m, found: dict) -> list | None:
    """The fewest flags, greedily, that (with the parents they need) tell every pair of states apart."""
    k = m.k
    pairs = set(combinations(range(k), 2))

    def split(bits):
        return {(s, t) for s, t in pairs if any((s in b) != (t in b) for b in bits)}

    chosen, done = [], set()
    while done != pairs:
        best = None
        for b in found:
            if b in chosen:
                continue
            chain, p = [b], found[b]
            while p is not None and p not in chosen and p not in chain:
                chain.append(p)
                p = found[p]
            gain = len(split(chain) - done)
            if gain and (best is None or gain * len(best[1]) > best[0] * len(chain)):
                best = (gain, chain)
        if best is None:
            return None
        chosen += reversed(best[1])
        done = split(chosen)
    # a flag no other flag needs and the rest do without is dropped
    for b in list(reversed(chosen)):
        rest = [c for c in chosen if c != b]
        if all(found[c] != b for c in rest) and split(rest) == pairs:
            chosen = rest
    return chosen


def _codes(m, chosen) -> list:
    return [sum(1 << i for i, b in enumerate(chosen) if s in b) for s in range(m.k)]


def cost(m, chosen) -> int:
    """Literals in the sums of products of every next-state and output bit under these flags."""
    w, code = len(chosen), _codes(m, chosen)
    names = [str(i) for i in range(w + max(1, sum(wd for _, wd in m.ins)))]
    return sum(e.count("&") + e.count("|") + 1 for e in _functions(m, w, code, names))


def flag_codes(m) -> tuple[int, list] | None:
    """(width, code per state) of the flags encoding, or None where it does not apply or saves nothing over
    one-hot. Among the sets of as many flags as the greedy choice, closed under parents, that tell the states
    apart, the one with the fewest literals is kept (when there are few enough sets to try them all)."""
    key = repr((m.nxt, m.out, m.ins, m.outs))
    if key not in _memo:
        _memo[key] = _flag_codes(m)
    return _memo[key]


_memo = {}      # machine -> its flags code: the menu and the rewrite ask for it alike


def _flag_codes(m):
    if m.k > MAX_K or m.k < 3 or m.input_free():
        return None
    found = candidates(m)
    chosen = choose(m, found)
    if chosen is None or len(chosen) >= m.k:
        return None
    w = len(chosen)
    if comb(len(found), w) <= MAX_TRIES:
        best = (cost(m, chosen), chosen)
        for sub in combinations(found, w):
            if any(found[b] is not None and found[b] not in sub for b in sub):
                continue
            if len(set(_codes(m, sub))) < m.k:
                continue
            c = cost(m, list(sub))
            if c < best[0]:
                best = (c, list(sub))
        chosen = best[1]
    return w, _polarity(m, w, _codes(m, chosen))


def _inverters(exprs: list) -> int:
    """Signals needing an inverter: inverted literals, except in a product of inverted literals only (a NOR)."""
    need = set()
    for e in exprs:
        terms = e.split(" | ")
        for t in terms:
            lits = t.strip("()").split(" & ")
            if len(terms) == 1 and len(lits) > 1 and all(x.startswith("~") for x in lits):
                continue
            need |= {x for x in lits if x.startswith("~")}
    return len(need)


def _polarity(m, w: int, code: list) -> list:
    """The codes with some flags stored inverted (reset to 1) where that needs fewer inverters: a flag read
    inverted by the others can be kept inverted for free (edge_detect's ~a history)."""
    if w > 6:
        return code
    names = [f"s{i}" for i in range(w)] + [f"v{i}" for i in range(max(1, sum(wd for _, wd in m.ins)))]
    best = None
    for mask in range(1 << w):
        c = [x ^ mask for x in code]
        n = _inverters(_functions(m, w, c, names))
        if best is None or n < best[0]:
            best = (n, c)
    return best[1]


def _support(rows: dict, nvars: int) -> list:
    """The variables (bit positions of the row keys) a function given as {key: value} needs: each dropped in
    turn, highest first, where the rest still determine the value."""
    keep = list(range(nvars))
    for j in reversed(range(nvars)):
        trial = [i for i in keep if i != j]
        seen, ok = {}, True
        for key, val in rows.items():
            sub = tuple((key >> i) & 1 for i in trial)
            if seen.setdefault(sub, val) != val:
                ok = False
                break
        if ok:
            keep = trial
    return keep


def _sop(on: set, off: set, n: int) -> list:
    """A small cover of `on` (minterms over n variables; neither on nor off: don't-care) by cubes
    (value, mask of cared bits): Quine-McCluskey primes, then a greedy cover."""
    cubes = {(x, (1 << n) - 1) for x in range(1 << n) if x not in off}
    primes = set()
    while cubes:
        merged, nxt = set(), set()
        for (v, mk) in cubes:
            for i in range(n):
                b = 1 << i
                if mk & b and (v ^ b, mk) in cubes:
                    nxt.add((v & ~b, mk & ~b))
                    merged.add((v, mk))
        primes |= cubes - merged
        cubes = nxt
    cover, left = [], set(on)
    while left:
        c = max(primes, key=lambda c: (len({x for x in left if x & c[1] == c[0]}), -bin(c[1]).count("1")))
        cover.append(c)
        left = {x for x in left if x & c[1] != c[0]}
    return cover


def expression(rows: dict, names: list) -> str:
    """A Verilog sum of products for the function {key: bit} (key bit i is the variable names[i]); keys not in
    rows are don't-cares."""
    sup = _support(rows, len(names))
    on, off = set(), set()
    for key, val in rows.items():
        x = sum(((key >> j) & 1) << i for i, j in enumerate(sup))
        (on if val else off).add(x)
    if not on:
        return "1'b0"
    if not off:
        return "1'b1"
    n = len(sup)
    cubes = _sop(on, off, n) if n <= MAX_SUPPORT else [(x, (1 << n) - 1) for x in sorted(on)]
    terms = []
    for v, mk in cubes:
        lits = [("" if (v >> i) & 1 else "~") + names[sup[i]] for i in range(len(sup)) if (mk >> i) & 1]
        terms.append(" & ".join(lits) if lits else "1'b1")
    return " | ".join(f"({t})" if len(terms) > 1 and " & " in t else t for t in terms)


def _functions(m, w, code, names) -> list:
    """Sums of products: each code bit's next value, then each output bit, over flags and input bits."""
    nvec, ow = len(m.nxt[0]), sum(wd for _, wd in m.outs)
    tables = [{code[s] | (v << w): (code[m.nxt[s][v]] >> i) & 1 for s in range(m.k) for v in range(nvec)}
              for i in range(w)]
    tables += [{code[s] | (v << w): (m.out[s][v] >> b) & 1 for s in range(m.k) for v in range(nvec)}
               for b in range(ow)]
    return [expression(t, names) for t in tables]


def emit_flags(p, m) -> str:
    from .resynth_aig import _frame, _io, _out_assigns
    got = flag_codes(m)
    if got is None:
        raise TransformError("resynth: encoding flags does not apply")
    w, code = got
    nv = max(1, sum(wd for _, wd in m.ins))
    ow, vdecl, rst_cond = _io(m)
    head, decls, vregs = _frame(p)
    names = [f"rtla_s[{i}]" for i in range(w)] + [f"rtla_v[{i}]" for i in range(nv)]
    edge = f"posedge {m.clock}" + (f" or {'negedge' if m.low else 'posedge'} {m.reset}" if m.async_reset else "")
    L = [head, *(f"    {x.strip()}" for x in decls),
         f"    // resynth: {m.reached} reachable states of {m.flops} flip-flop bits, {m.k} after merging; "
         f"{w} history flags, each set from the inputs and at most one other flag",
         f"    reg [{w - 1}:0] rtla_s;", vdecl, f"    wire [{ow - 1}:0] rtla_o;",
         f"    always @({edge})", f"        if ({rst_cond}) rtla_s <= {w}'d{code[0]};", "        else begin"]
    funcs = _functions(m, w, code, names)
    for i in range(w):
        L.append(f"            rtla_s[{i}] <= {funcs[i]};")
    L.append("        end")
    for b in range(ow):
        L.append(f"    assign rtla_o[{b}] = {funcs[w + b]};")
    L += _out_assigns(m, vregs)
    return "\n".join(L + ["endmodule", ""])
