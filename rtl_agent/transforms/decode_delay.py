"""decode_delay: one-bit registers that each hold a decode of another register's previous value become one copy
of that register, decoded where read.

A controller often keeps 'the previous state' as one-hot flags (`p_red <= 1` in the red arm of `case (state)`,
0 in the others, and so on for each colour): n flip-flops where a copy of the w-bit state (w < n) and an
equality decode would do. The relation r(t+1) = (R(t) == c) is semantic, however the flag's update is written,
so candidates are found by simulation: the module's AIG (Yosys, as resynth exports it) runs from reset on
random inputs, and every one-bit register whose next value equals `R == c` (or its inverse) at every sampled
step, for one register R and constant c, is a flag of R. Where R has more flags than bits, the option replaces
them: their assignments go, `rtla_<R>_d <= R` is added on the same clock and reset (reset to a value that
decodes to the flags' reset values), and each flag is driven by `always @* r = (rtla_<R>_d == c)`, so every
reader is unchanged. Flags of flags (a second delay, `red <= p_red`) become flags of the copy and are found by a
second application. The simulation only proposes; the prover decides.
"""
from __future__ import annotations

import random
import re
from functools import lru_cache

from . import register
from .base import Design, Option, Transform, TransformError
from .syntax import splice, walk

LANES = 64
STEPS = 256
MAX_W = 8
MAX_ANDS = 4000         # the simulation steps every AND gate in Python


def _simulate(aig, reset: str, low: bool, seed: int = 0) -> list:
    """[output words per step] from reset on random inputs (the first step is under reset); bit j of a word is
    lane j. The outputs show the registers' current values (the export exposes them)."""
    rng = random.Random(seed)
    full = (1 << LANES) - 1
    rst = [j for j, (n, _) in aig.in_names.items() if n == reset]
    if not rst:
        raise TransformError("decode_delay: the reset is not an input of the AIG")

    def inputs(on):
        w = {j: rng.getrandbits(LANES) for j in range(len(aig.ins))}
        for j in rst:
            w[j] = (0 if low else full) if on else (full if low else 0)
        return w
    _, st = aig.step(LANES, inputs(True), [0] * len(aig.lat))
    trace = []
    for _ in range(STEPS):
        o, st = aig.step(LANES, inputs(False), st)
        trace.append(o)
    return trace


def _values(trace, bits) -> list:
    """Per step, per lane: the register's value."""
    return [[sum(((o[j] >> lane) & 1) << b for b, j in bits) for lane in range(LANES)] for o in trace]


@lru_cache(maxsize=16)
def groups(code: str, top: str) -> tuple:
    """((R, width, ((flag, code, inverted), ...), reset value of the copy, clock, reset, low, async), ...)."""
    from eda.hdl import detect_clock_reset
    from eda.ports import Port
    from .recognise import _ports
    from .resynth_aig import Aig, _export
    p = Design(code, top).parsed()
    ins, _ = _ports(p)
    clock, reset, low = detect_clock_reset([Port(n, "input", w) for n, w in ins], code)
    if not clock or not reset or re.search(rf"negedge\s+{re.escape(clock)}\b", code):
        return ()
    async_reset = bool(re.search(rf"(posedge|negedge)\s+{re.escape(reset)}\b", code))
    named = {n for n, v in p.symbols(("Variable",)).items()}     # registers, output registers among them
    if sum(p.width(n) == 1 for n in named) < 2:
        return ()
    aig = Aig(*_export(code, top, async_reset, expose=True))
    if len(aig.ands) > MAX_ANDS:
        return ()
    regs = {}
    for j, (n, bit) in aig.out_names.items():
        if n in named:
            regs.setdefault(n, []).append((bit, j))
    regs = {n: sorted(b) for n, b in regs.items() if sorted(x for x, _ in b) == list(range(len(b)))}
    trace = _simulate(aig, reset, low)
    vals = {n: _values(trace, b) for n, b in regs.items() if len(b) <= MAX_W}
    init = {n: v[0][0] for n, v in vals.items()}        # the first step shows the values reset left
    out = []
    for R, rv in vals.items():
        w = len(regs[R])
        flags = []
        for r, fv in vals.items():
            if r == R or len(regs[r]) != 1:
                continue
            got = _decode(rv, fv)
            if got is not None:
                flags.append((r, *got))
        if len(flags) <= w:
            continue
        fits = [v for v in [init[R], *range(1 << w)]
                if all(int((v == c) != inv) == init[r] for r, c, inv in flags)]
        if fits:
            out.append((R, w, tuple(flags), fits[0], clock, reset, low, async_reset))
    return tuple(out)


def _decode(rv, fv):
    """(c, inverted) where flag(t+1) == (R(t) == c) (inverted: !=) at every sampled step, else None."""
    pairs = {(rv[t][lane], fv[t + 1][lane]) for t in range(len(rv) - 1) for lane in range(LANES)}
    if len({f for _, f in pairs}) < 2 or len({r for r, _ in pairs}) < 2:
        return None
    for inv in (False, True):
        ones = {r for r, f in pairs if f != inv}
        if len(ones) == 1 and all((r in ones) == (f != inv) for r, f in pairs):
            return next(iter(ones)), inv
    return None


def rewrite(p, g) -> str:
    R, w, flags, v0, clock, reset, low, async_reset = g
    names = {r for r, _, _ in flags}
    edits = []
    for n in walk(p.module):
        k = n.kind.name
        if k in ("NonblockingAssignmentExpression", "AssignmentExpression") and _lhs(n) in names:
            st = n.parent
            if k != "NonblockingAssignmentExpression" or st.kind.name != "ExpressionStatement":
                raise TransformError(f"decode_delay: {_lhs(n)} is assigned other than by `<=`")
            edits.append((*p.span(st), ";"))
        elif k in ("NonblockingAssignmentExpression", "AssignmentExpression") and \
                any(x in names for x in re.findall(r"\w+", p.text(n.left))):
            raise TransformError("decode_delay: a flag is assigned in part or in a concatenation")
    used = set(re.findall(r"\w+", p.code))
    prev = re.fullmatch(r"rtla_(\w+)_d(\d*)", R)      # a copy of a copy: rtla_x_d2, not rtla_rtla_x_d_d
    cp = f"rtla_{prev.group(1)}_d{int(prev.group(2) or 1) + 1}" if prev else f"rtla_{R}_d"
    while cp in used:
        cp += "_"
    edge = f"posedge {clock}" + (f" or {'negedge' if low else 'posedge'} {reset}" if async_reset else "")
    rst = f"!{reset}" if low else reset
    add = [f"    // decode_delay: {', '.join(sorted(names))} are decodes of {R}'s previous value",
           f"    reg [{w - 1}:0] {cp};",
           f"    always @({edge})", f"        if ({rst}) {cp} <= {w}'d{v0};", f"        else {cp} <= {R};"]
    add += [f"    always @* {r} = ({cp} {'!=' if inv else '=='} {w}'d{c});" for r, c, inv in flags]
    a, b = p.span(p.module)
    end = p.code.rfind("endmodule", a, b)
    edits.append((end, end, "\n".join(add) + "\n"))
    return splice(p.code, edits)


def _lhs(n):
    x = n.left
    while x.kind.name == "ParenthesizedExpression":
        x = x.expression
    return x.identifier.valueText if x.kind.name == "IdentifierName" else None


def _again(code: str, top: str) -> tuple | None:
    """In a rewrite, the group of flags decoded from the copy it added (a second delay), or None."""
    cp = re.findall(r"reg \[\d+:0\] (rtla_\w+_d\d*);", code)[-1]
    return next((g for g in groups(code, top) if g[0] == cp), None)


class DecodeDelay(Transform):
    name = "decode_delay"
    summary = "one-bit registers holding decodes of a register's previous value become one copy of it, decoded"

    def options(self, d: Design) -> list[Option]:
        if "posedge" not in d.code:
            return []
        opts = []
        for g in groups(d.code, d.top):
            R, w, flags = g[0], g[1], g[2]
            label = (f"{', '.join(r for r, _, _ in flags)}: decodes of {R}'s previous value become one {w}-bit "
                     f"copy of {R} ({len(flags)} flip-flops -> {w})")
            opts.append(self.option(R, label, source=R))
            # flags of these flags (a second delay) are offered in the same step: one choice, not two in a row
            try:
                g2 = _again(rewrite(d.parsed(), g), d.top)
            except TransformError:
                g2 = None
            if g2 is not None:
                opts.append(self.option(R, f"{label}, and {', '.join(r for r, _, _ in g2[2])} (decodes of the "
                                           f"value before) a copy of the copy ({len(g2[2])} -> {g2[1]})",
                                        source=R, depth=2))
        return opts

    def apply(self, d: Design, o: Option) -> str:
        g = next((g for g in groups(d.code, d.top) if g[0] == o.params.get("source")), None)
        if g is None:
            raise TransformError("decode_delay: the register's flags are gone")
        code = rewrite(d.parsed(), g)
        if o.params.get("depth", 1) == 2:
            g2 = _again(code, d.top)
            if g2 is None:
                raise TransformError("decode_delay: no flags of the flags")
            code = rewrite(Design(code, d.top).parsed(), g2)
        return code


register(DecodeDelay())
