"""resynth: a small sequential module written again from its reachable state graph.

Its flip-flops and logic are exported as an AIG (Yosys, in the sandbox). From the reset state every input
vector is applied, breadth first, to collect the reachable states and, per state and vector, the outputs and
the next state. States no input sequence tells apart are merged (Moore's partition refinement), and the machine
is written back as one state register in a chosen encoding: binary, gray, one-hot, output-aligned (each Moore
output is a code bit, so it costs no decoder), Johnson (an input-free cycle of even length: the next state is
a shift and an inverter) or history flags (resynth_flags: each flip-flop set from the inputs and at most one
other flip-flop, a sequence detector's shift-and form). A module's counter, toggle and state registers are
re-encoded together, which neither synthesis nor `fsm_encode` (one register at a time) does; the hand-written
ceiling's largest RTLLM gains are of this sort (pulse_detect, freq_divbyeven, freq_divbyfrac, sequence_detector).

Only small machines: at most MAX_IN_BITS input bits besides clock and reset, MAX_STATES reachable states, a
reset that sets every flip-flop. A module with flip-flops on both edges of its clock goes to resynth_edge (two
registers, one per edge; encodings there also include `lfsr`). The rewrite is a candidate like any other: the
prover decides.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

from . import register
from .base import Design, Option, Transform, TransformError
from .recognise import _ports

MAX_STATES = 128
ENCODINGS = ("flags", "binary", "gray", "onehot", "aligned", "johnson")     # flags first where it applies


@dataclass(frozen=True)
class Machine:
    """The reachable, minimised machine: states 0..k-1 (0 the reset state), per state the next state and the
    output word for each input vector (vector v: the data inputs' bits, first input lowest)."""
    nxt: list
    out: list
    ins: list
    outs: list
    reached: int            # before merging: reachable states
    flops: int              # flip-flop bits of the module
    clock: str
    reset: str
    low: bool               # the reset is active low
    async_reset: bool

    @property
    def k(self):
        return len(self.nxt)

    def moore(self) -> bool:
        return all(len(set(row)) == 1 for row in self.out)

    def input_free(self) -> bool:
        return all(len(set(row)) == 1 for row in self.nxt)


from .resynth_aig import MAX_ANDS, MAX_IN_BITS, Aig, _export, _runner
from .resynth_aig import _frame, _io, _out_assigns, _vec_case


def _explore(aig: Aig, clock: str, reset: str, low: bool, data: list) -> tuple[list, list, list]:
    """BFS from the reset state: (states as latch tuples, next[s][v], out[s][v])."""
    nvec = 1 << sum(w for _, w in data)
    nl = len(aig.lat)
    run = _runner(aig, reset, low, data)

    # a flip-flop the reset leaves (or a latch) starts at 0 or 1: both are explored, and the machine is kept
    # only when the states reset can lead to are merged into one (no output sequence tells them apart)
    after, _ = run([tuple([0] * nl), tuple([1] * nl)], True)
    roots = list(dict.fromkeys(after))
    states, pos, nxt, out = list(roots), {s: i for i, s in enumerate(roots)}, [], []
    frontier = list(roots)
    while frontier:
        n, o = run(frontier, False)
        for i, s in enumerate(frontier):
            row_n, row_o = [], []
            for v in range(nvec):
                t = n[i * nvec + v]
                if t not in pos:
                    if len(states) >= MAX_STATES:
                        raise TransformError(f"resynth: more than {MAX_STATES} reachable states")
                    pos[t] = len(states)
                    states.append(t)
                row_n.append(pos[t])
                row_o.append(o[i * nvec + v])
            nxt.append(row_n)
            out.append(row_o)
        frontier = states[len(nxt):]
    return states, nxt, out, len(roots)


def _minimise(nxt: list, out: list, roots: int = 1) -> tuple[list, list]:
    """Moore's partition refinement; the reset state's block is numbered 0, blocks in BFS order. With several
    reset states (flip-flops the reset leaves), they must fall into one block."""
    block = _renumber([tuple(r) for r in out])
    while True:
        new = _renumber([(block[s], tuple(block[t] for t in nxt[s])) for s in range(len(nxt))])
        if len(set(new)) == len(set(block)):
            break
        block = new
    if len(set(block[:roots])) > 1:
        raise TransformError("resynth: the reset does not set every flip-flop, and the states it leaves differ")
    k = len(set(block))
    rep = {}
    for s, b in enumerate(block):
        rep.setdefault(b, s)
    return [[block[t] for t in nxt[rep[b]]] for b in range(k)], [out[rep[b]] for b in range(k)]


def _renumber(keys: list) -> list:
    ids = {}
    return [ids.setdefault(x, len(ids)) for x in keys]


@lru_cache(maxsize=32)
def machine(code: str, top: str) -> Machine:
    from eda.hdl import detect_clock_reset
    from eda.ports import Port
    p = Design(code, top).parsed()
    ins, outs = _ports(p)
    clock, reset, low = detect_clock_reset([Port(n, "input", w) for n, w in ins], code)
    if not clock or not reset:
        raise TransformError("resynth: needs a clock and a reset input")
    if re.search(rf"negedge\s+{re.escape(clock)}\b", code):
        raise TransformError("resynth: falling-edge flip-flops (resynth_edge.edge_machine)")
    data = [(n, w) for n, w in ins if n not in (clock, reset)]
    if sum(w for _, w in data) > MAX_IN_BITS:
        raise TransformError(f"resynth: more than {MAX_IN_BITS} input bits")
    async_reset = bool(re.search(rf"(posedge|negedge)\s+{re.escape(reset)}\b", code))
    aig = Aig(*_export(code, top, async_reset))
    if len(aig.ands) > MAX_ANDS or not aig.lat:
        raise TransformError("resynth: no flip-flops or too large an AIG")
    out_bits = {}      # (output, bit) -> AIG output index
    for j, (name, bit) in aig.out_names.items():
        out_bits[(name, bit)] = j
    if any((n, b) not in out_bits for n, w in outs for b in range(w)):
        raise TransformError("resynth: an output bit is missing from the AIG")
    states, nxt, out, roots = _explore(aig, clock, reset, low, data)
    # output words in port order (bit b of output n at its offset), not the AIG's order
    order = [out_bits[(n, b)] for n, w in outs for b in range(w)]
    out = [[sum(((o >> j) & 1) << i for i, j in enumerate(order)) for o in row] for row in out]
    mn, mo = _minimise(nxt, out, roots)
    return Machine(mn, mo, data, outs, len(states), len(aig.lat), clock, reset, low, async_reset)


def _gray(i: int) -> int:
    return i ^ (i >> 1)


def _cycle(m: Machine) -> list | None:
    """The states in order when the machine is one input-free cycle through all of them, else None."""
    if not m.input_free():
        return None
    seq, s = [], 0
    while s not in seq:
        seq.append(s)
        s = m.nxt[s][0]
    return seq if s == 0 and len(seq) == m.k else None


def codes(m: Machine, enc: str) -> tuple[int, list] | None:
    """(width, code per state) of an encoding, or None where it does not apply."""
    if enc == "flags":
        from .resynth_flags import flag_codes
        return flag_codes(m)
    k = m.k
    wb = max(1, (k - 1).bit_length())
    if enc == "binary":
        return wb, list(range(k))
    if enc == "gray":
        return wb, [_gray(i) for i in range(k)]
    if enc == "onehot":
        return (k, [1 << i for i in range(k)]) if 2 < k <= 32 else None
    if enc == "johnson":
        seq = _cycle(m)
        if seq is None or k % 2 or k < 4:
            return None
        n, c, got = k // 2, 0, [0] * k
        for s in seq:
            got[s] = c
            c = ((c << 1) | (1 ^ (c >> (n - 1)) & 1)) & ((1 << n) - 1)
        return n, got
    if enc == "aligned":
        if not m.moore():
            return None
        ow = sum(w for _, w in m.outs)
        word = [row[0] for row in m.out]
        groups = {}
        rank = [groups.setdefault(x, []).append(s) or len(groups[x]) - 1 for s, x in enumerate(word)]
        extra = max(0, (max(len(g) for g in groups.values()) - 1).bit_length())
        if ow + extra > wb + 2 or ow > 8:
            return None
        return ow + extra, [(word[s] << extra) | rank[s] for s in range(k)]
    return None


def emit(p, m: Machine, enc: str) -> str:
    if enc == "flags":
        from .resynth_flags import emit_flags
        return emit_flags(p, m)
    got = codes(m, enc)
    if got is None:
        raise TransformError(f"resynth: encoding {enc} does not apply")
    w, code = got
    ow, vdecl, rst_cond = _io(m)
    head, decls, vregs = _frame(p)
    edge = f"posedge {m.clock}" + (f" or {'negedge' if m.low else 'posedge'} {m.reset}" if m.async_reset else "")
    L = [head, *(f"    {x.strip()}" for x in decls),
         f"    // resynth: {m.reached} reachable states of {m.flops} flip-flop bits, {m.k} after merging; {enc} code",
         f"    reg [{w - 1}:0] rtla_s;", vdecl,
         f"    reg [{ow - 1}:0] rtla_o;"]
    L += [f"    always @({edge})", f"        if ({rst_cond}) rtla_s <= {w}'d{code[0]};"]
    if enc == "johnson":
        L.append(f"        else rtla_s <= {{rtla_s[{w - 2}:0], ~rtla_s[{w - 1}]}};" if w > 1 else "        else rtla_s <= ~rtla_s;")
    else:
        L += ["        else case (rtla_s)"]
        for s in range(m.k):
            L.append(f"            {w}'d{code[s]}: begin")
            _vec_case(L, " " * 16, m.nxt[s], "rtla_v", lambda t: f"rtla_s <= {w}'d{code[t]};")
            L.append("            end")
        # codes no reachable state has are don't-cares: synthesis picks their next state (sequence_detector's
        # binary rewrite 1.72x -> 2.06x, proven; the reset never leads there, and the prover checks that)
        L += [f"            default: rtla_s <= {w}'bx;", "        endcase"]
    L += _outputs(m, enc, w, code, ow)
    L += _out_assigns(m, vregs)
    return "\n".join(L + ["endmodule", ""])


def _wired(m: Machine, w: int, code: list, ow: int) -> dict:
    """{output bit: expression} for Moore output bits equal to a code bit or its inverse in every state."""
    if not m.moore():
        return {}
    got = {}
    for b in range(ow):
        col = [(m.out[s][0] >> b) & 1 for s in range(m.k)]
        for i in range(w):
            bits = [(code[s] >> i) & 1 for s in range(m.k)]
            if bits == col:
                got[b] = f"rtla_s[{i}]"
                break
            if [1 - x for x in bits] == col:
                got[b] = f"~rtla_s[{i}]"
                break
    return got


def _outputs(m: Machine, enc: str, w: int, code: list, ow: int) -> list:
    wired = _wired(m, w, code, ow)
    if len(wired) == ow:
        return [f"    always @* rtla_o[{b}] = {e};" for b, e in sorted(wired.items())]
    L = ["    always @* begin", f"        rtla_o = {ow}'d0;", "        case (rtla_s)"]
    for s in range(m.k):
        if not any(m.out[s]):
            continue
        L.append(f"            {w}'d{code[s]}: begin")
        _vec_case(L, " " * 16, m.out[s], "rtla_v", lambda x: f"rtla_o = {ow}'d{x};")
        L.append("            end")
    return L + ["            default: ;", "        endcase", "    end"]


class Resynth(Transform):
    name = "resynth"
    summary = "a small sequential module written again from its reachable, minimised state graph"

    def options(self, d: Design) -> list[Option]:
        if "posedge" not in d.code and "negedge" not in d.code:
            return []
        from .resynth_edge import for_design
        em = for_design(d)
        if em is not None:
            from .resynth_edge import ENCODINGS as EDGE_ENCODINGS
            from .resynth_edge_emit import edge_codes, rank
            opts, seen = [], set()
            codes_ = {enc: edge_codes(em, enc) for enc in EDGE_ENCODINGS}
            for enc in sorted((e for e in EDGE_ENCODINGS if codes_[e] is not None),
                              key=lambda e: rank(em, e, codes_[e])):
                got = codes_[enc]
                if repr(got) in seen:
                    continue
                seen.add(repr(got))
                opts.append(self.option("module", f"re-derive the both-edge module from its {em.reached} reachable "
                                                  f"states: {em.kp} x {em.kn} blocks, {enc} code in "
                                                  f"{got[0][0]} + {got[1][0]} flip-flops (was {sum(em.flops)})",
                                        encoding=enc))
            return opts
        m = machine(d.code, d.top)
        opts = []
        for enc in ENCODINGS:
            got = codes(m, enc)
            if got is None:
                continue
            opts.append(self.option("module", f"re-derive the module from its {m.reached} reachable states: "
                                              f"{m.k} states after merging, {enc} code in {got[0]} flip-flops "
                                              f"(was {m.flops})", encoding=enc))
        return opts

    def apply(self, d: Design, o: Option) -> str:
        from .resynth_edge import for_design
        enc = o.params.get("encoding")
        em = for_design(d)
        if enc not in ENCODINGS and not (em is not None and enc == "lfsr"):
            raise TransformError("resynth: option without an encoding")
        if em is not None:
            from .resynth_edge_emit import emit_edge
            return emit_edge(d.parsed(), em, enc)
        return emit(d.parsed(), machine(d.code, d.top), enc)


register(Resynth())
