"""Strategies `exhaustive_first` and `exhaustive_last`: a small combinational design
(at most EXHAUSTIVE_BITS input bits) simulated on every input vector, a proof that no SAT
time-out can weaken.  First with half the time before SAT; if that ran out of its share,
again after SAT with what is left (random co-simulation comes last)."""
import time

from ..report import Diagnostic
from .base import _Fail
from .context import EquivContext
from .sim import _cosim, _preprocess
from .verdict import _cex, _proven, _set_cex

EXHAUSTIVE_BITS = 18     # combinational designs with at most this many input bits are simulated exhaustively


def _split(value: int, inputs: list) -> dict:
    """The exhaustive loop's counter -> input values ({i0, i1, ...} = counter)."""
    out, shift = {}, sum(w for _, w in inputs)
    for n, w in inputs:
        shift -= w
        out[n] = (value >> shift) & ((1 << w) - 1)
    return out


def _exhaustive(res, gpre, tpre, top, gold, inputs, root, deadline, notes) -> bool:
    """Simulate every input vector; True when that settled the verdict (proven or counterexample)."""
    cs = _cosim(gpre, tpre, top, gold.ports, None, "exhaustive", False, root, deadline, "all")
    if cs.get("mismatch"):
        m = cs["mismatch"]
        vec = _split(m["cycle"], inputs)
        m["cycle"] = 0
        data, text = _cex([vec], inputs, None, None, m, "exhaustive simulation", False)
        _set_cex(res, data, text, "exhaustive simulation")
        return True
    if cs["ok"]:
        _proven(res, "exhaustive simulation", [Diagnostic(n, severity="info") for n in notes], vectors=cs["cycles"])
        return True
    return False


def exhaustive_first(ctx: EquivContext):
    """Before any formal check, with half the time left."""
    ctx.small_comb = not ctx.sequential and 0 < sum(w for _, w in ctx.inputs) <= EXHAUSTIVE_BITS
    if not ctx.small_comb:
        return None
    try:
        half = time.monotonic() + 0.5 * (ctx.deadline - time.monotonic())
        if _exhaustive(ctx.res, _preprocess(ctx.ref, "gold", ctx.root, half), _preprocess(ctx.cand, "gate", ctx.root, half),
                       ctx.top, ctx.gold, ctx.inputs, ctx.root, half, []):
            return ctx.res
        ctx.small_comb = False   # ran out of its share: SAT next, random co-simulation last
    except _Fail:
        pass                     # the preprocessor failed: tried again (and noted) before simulation
    return None


def exhaustive_last(ctx: EquivContext):
    """After the formal checks (when the first try could not preprocess the designs)."""
    if ctx.small_comb and _exhaustive(ctx.res, ctx.gpre, ctx.tpre, ctx.top, ctx.gold, ctx.inputs, ctx.root,
                                      ctx.deadline, ctx.notes):
        return ctx.res
    return None

