"""resynth on both clock edges: a module whose flip-flops step on the rising and the falling edge of one clock.

The reachable states are searched over half cycles: after the reset either edge may come first, then rising
and falling edges alternate, and each half step commits only its own flip-flops (the AIG computes every
latch's next value; a rising step keeps the falling-edge latches, and the other way round). A state is the
pair (P, N) of the rising- and falling-edge flip-flop values. The rewrite keeps that split, so each edge
still updates only its own register and the outputs change at the same edges as before: P values and N values
are merged (partition refinement on both sides at once, then a check that every pair of blocks that is
reachable behaves one way) and each side is re-encoded on its own. The hand-written ceiling's odd and
fractional dividers (a counter and a divided clock per edge) are of this sort.

An asynchronous reset is required (it sets both halves at once, whatever the clock level); the prover decides.
"""
from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

import re

from .base import Design, TransformError

MAX_HALF_STATES = 512       # (phase, state) pairs the search may visit: a work cap, not a time cap
ENCODINGS = ("binary", "gray", "onehot", "aligned", "johnson", "lfsr")


@dataclass(frozen=True)
class EdgeMachine:
    """Blocks of rising-edge values 0..kp-1 and falling-edge values 0..kn-1 (0: the reset's). pairs maps each
    reachable (p block, n block) to (output word per input vector, next p block per vector after a rising
    edge or None where no rising edge follows it, the same for the falling edge)."""
    kp: int
    kn: int
    pairs: dict
    ins: list
    outs: list
    vis_p: list             # [count, per p block its bits worth carrying] (resynth_edge._features)
    vis_n: list
    reached: int            # reachable (P, N) states before merging
    flops: tuple            # (rising-edge, falling-edge) flip-flop bits of the module
    clock: str
    reset: str
    low: bool


def _polarity(aig, neg: set, pos: set) -> list:
    """Per latch 'p', 'n' or 'b' (no flip-flop of the module: a latch write_aiger adds, stepping always)."""
    names = {}
    for line in aig.mapping.splitlines():
        f = line.split()
        if len(f) >= 4 and f[0] == "latch":
            names[int(f[1])] = f[3]
    out = []
    for j in range(len(aig.lat)):
        nm = names.get(j)
        if nm in neg and nm in pos:
            raise TransformError("resynth: a register with bits on both clock edges")
        out.append("n" if nm in neg else "p" if nm in pos else "b")
    return out


def _search(run, nl: int, pol: list, nvec: int):
    """Half-cycle BFS. Returns {state: [out row, rising row or None, falling row or None]} and the roots."""
    after, _ = run([tuple([0] * nl), tuple([1] * nl)], True)
    roots = list(dict.fromkeys(after))
    # phase 0: just out of reset (either edge next); 1: after a rising edge; 2: after a falling edge
    seen = {(0, s) for s in roots}
    frontier = [(0, s) for s in roots]
    info = {}
    while frontier:
        n, o = run([s for _, s in frontier], False)
        nxt = []
        for i, (ph, s) in enumerate(frontier):
            row = info.setdefault(s, [None, None, None])
            row[0] = tuple(o[i * nvec:(i + 1) * nvec])
            for edge, keep, new_ph, slot in (("p", 2, 1, 1), ("n", 1, 2, 2)):
                if ph == keep or ph == 0:
                    succ = [tuple(t[b] if pol[b] in (edge, "b") else s[b] for b in range(nl))
                            for t in n[i * nvec:(i + 1) * nvec]]
                    row[slot] = tuple(succ)
                    for t in succ:
                        if (new_ph, t) not in seen:
                            if len(seen) >= MAX_HALF_STATES:
                                raise TransformError(f"resynth: more than {MAX_HALF_STATES} half-cycle states")
                            seen.add((new_ph, t))
                            nxt.append((new_ph, t))
        frontier = nxt
    return info, roots


def _renumber(keys: list) -> list:
    ids = {}
    return [ids.setdefault(x, len(ids)) for x in keys]


def _partition(info: dict, split):
    """Blocks of P values and N values such that every reachable pair of blocks behaves one way."""
    states = list(info)
    pv = list(dict.fromkeys(split(s)[0] for s in states))
    nv = list(dict.fromkeys(split(s)[1] for s in states))
    bp, bn = {v: 0 for v in pv}, {v: 0 for v in nv}

    def beh(s):
        out, pr, nr = info[s]
        return (out, None if pr is None else tuple(bp[split(t)[0]] for t in pr),
                None if nr is None else tuple(bn[split(t)[1]] for t in nr))
    while True:
        while True:
            by_p, by_n = {v: set() for v in pv}, {v: set() for v in nv}
            for s in states:
                p, n = split(s)
                b = beh(s)
                by_p[p].add((bn[n], b))
                by_n[n].add((bp[p], b))
            new_p = dict(zip(pv, _renumber([(bp[v], frozenset(by_p[v])) for v in pv])))
            new_n = dict(zip(nv, _renumber([(bn[v], frozenset(by_n[v])) for v in nv])))
            done = len(set(new_p.values())) == len(set(bp.values())) and \
                len(set(new_n.values())) == len(set(bn.values()))
            bp, bn = new_p, new_n
            if done:
                break
        # a block pair whose members still behave differently: split one side and refine again
        pairs, clash = {}, None
        for s in states:
            p, n = split(s)
            key, b = (bp[p], bn[n]), beh(s)
            if pairs.setdefault(key, (s, b))[1] != b:
                clash = (pairs[key][0], s)
                break
        if clash is None:
            return bp, bn, {k: b for k, (_, b) in pairs.items()}
        (p1, n1), (p2, n2) = split(clash[0]), split(clash[1])
        if p1 != p2:
            bp[p2] = max(bp.values()) + 1
        else:
            bn[n2] = max(bn.values()) + 1
        bp = dict(zip(pv, _renumber([bp[v] for v in pv])))
        bn = dict(zip(nv, _renumber([bn[v] for v in nv])))


@lru_cache(maxsize=16)
def edge_machine(code: str, top: str, clock: str, reset: str, low: bool, ins: tuple, outs: tuple) -> EdgeMachine:
    from .resynth_aig import MAX_ANDS, MAX_IN_BITS, Aig, _export, _runner
    data = [(n, w) for n, w in ins if n not in (clock, reset)]
    if sum(w for _, w in data) > MAX_IN_BITS:
        raise TransformError(f"resynth: more than {MAX_IN_BITS} input bits")
    aag, mp, neg, pos = _export(code, top, True, edges=True)
    aig = Aig(aag, mp)
    aig.mapping = mp
    if len(aig.ands) > MAX_ANDS or not aig.lat:
        raise TransformError("resynth: no flip-flops or too large an AIG")
    pol = _polarity(aig, neg, pos)
    out_bits = {(name, bit): j for j, (name, bit) in aig.out_names.items()}
    if any((n, b) not in out_bits for n, w in outs for b in range(w)):
        raise TransformError("resynth: an output bit is missing from the AIG")
    nvec = 1 << sum(w for _, w in data)
    info, roots = _search(_runner(aig, reset, low, data), len(aig.lat), pol, nvec)
    order = [out_bits[(n, b)] for n, w in outs for b in range(w)]
    for s in info:
        info[s][0] = tuple(sum(((o >> j) & 1) << i for i, j in enumerate(order)) for o in info[s][0])
    # latches of neither edge (write_aiger's own) must hold one value once out of reset
    both = [b for b, x in enumerate(pol) if x == "b"]
    if len({tuple(s[b] for b in both) for s in info}) > 1:
        raise TransformError("resynth: a latch that is neither edge's flip-flop changes")
    ip = [b for b, x in enumerate(pol) if x == "p"]
    in_ = [b for b, x in enumerate(pol) if x == "n"]

    def split(s):
        return tuple(s[b] for b in ip), tuple(s[b] for b in in_)
    bp, bn, pairs = _partition(info, split)
    r0 = {(bp[split(r)[0]], bn[split(r)[1]]) for r in roots}
    if len(r0) > 1:
        raise TransformError("resynth: the reset does not set every flip-flop, and the states it leaves differ")
    # number the blocks so that the reset's are 0
    rp, rn = next(iter(r0))
    mp_ = {rp: 0, **{b: i + 1 for i, b in enumerate(sorted(set(bp.values()) - {rp}))}}
    mn_ = {rn: 0, **{b: i + 1 for i, b in enumerate(sorted(set(bn.values()) - {rn}))}}
    pairs = {(mp_[a], mn_[c]): (o, None if pr is None else tuple(mp_[x] for x in pr),
                                None if nr is None else tuple(mn_[x] for x in nr))
             for (a, c), (o, pr, nr) in pairs.items()}
    vis_p, vis_n = _features(pairs, len(mp_), len(mn_), sum(w for _, w in outs))
    return EdgeMachine(len(mp_), len(mn_), pairs, data, list(outs), vis_p, vis_n, len(info),
                       (len(ip), len(in_)), clock, reset, low)


def _split_bit(vals: dict, kp: int, kn: int):
    """(a per p block, b per n block) with value = a[p] OP b[n] on every reachable pair, OP the first of |, &, ^
    that fits; None where none does."""
    for op in ("|", "&"):
        hit = 1 if op == "&" else 0          # the value that forces both halves
        a, b = [1 - hit] * kp, [1 - hit] * kn
        for (p, n), v in vals.items():
            if v == hit:
                a[p], b[n] = hit, hit
        if all((a[p] | b[n] if op == "|" else a[p] & b[n]) == v for (p, n), v in vals.items()):
            return a, b
    a, b = [None] * kp, [None] * kn
    edges = {}
    for (p, n), v in vals.items():
        edges.setdefault(("p", p), []).append((("n", n), v))
        edges.setdefault(("n", n), []).append((("p", p), v))
    for start in edges:
        side, i = start
        if (a if side == "p" else b)[i] is not None:
            continue
        (a if side == "p" else b)[i] = 0
        todo = [start]
        while todo:
            side, i = todo.pop()
            x = (a if side == "p" else b)[i]
            for (s2, j), v in edges[(side, i)]:
                arr = a if s2 == "p" else b
                if arr[j] is None:
                    arr[j] = x ^ v
                    todo.append((s2, j))
                elif arr[j] != x ^ v:
                    return None
    return [x or 0 for x in a], [x or 0 for x in b]


def _features(pairs: dict, kp: int, kn: int, nout: int) -> tuple[list, list]:
    """Per side the bits worth carrying in its code (the aligned and shift codes): for each output bit that
    no input reaches, the halves a and b with output = a(p block) OP b(n block); one-sided outputs give a
    constant other half. Format: [count, value per block]."""
    fa, fb = [], []
    for o in range(nout):
        vals = {}
        for key, (row, _, _) in pairs.items():
            got = {(x >> o) & 1 for x in row}
            if len(got) > 1:
                break
            vals[key] = got.pop()
        else:
            got = _split_bit(vals, kp, kn)
            if got is not None:
                for side, col in zip((fa, fb), got):
                    if len(set(col)) > 1 and col not in side:
                        side.append(col)
    return tuple([len(f)] + [sum(c[b] << i for i, c in enumerate(f)) for b in range(k)]
                 for f, k in ((fa, kp), (fb, kn)))


def for_design(d: Design) -> EdgeMachine | None:
    """The both-edge machine of a module with falling-edge flip-flops on its clock, else None."""
    from eda.hdl import detect_clock_reset
    from eda.ports import Port
    from .recognise import _ports
    ins, outs = _ports(d.parsed())
    clock, reset, low = detect_clock_reset([Port(n, "input", w) for n, w in ins], d.code)
    if not clock or not re.search(rf"negedge\s+{re.escape(clock)}\b", d.code):
        return None
    if not reset or not re.search(rf"(posedge|negedge)\s+{re.escape(reset)}\b", d.code):
        raise TransformError("resynth: a both-edge module needs an asynchronous reset")
    return edge_machine(d.code, d.top, clock, reset, low, tuple(ins), tuple(outs))
