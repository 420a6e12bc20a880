"""Strategies `sim_ready` and `random_cosim`: biased random stimulus for both designs in
Icarus, the last word when nothing formal decided.  Where no formal check is possible (a
design Yosys cannot read) it is a deep bug search instead: DEEP_CYCLES cycles, held
inputs, other reset-named inputs mostly inactive, values built field by field."""
import random
import re
import time

from ..hdl import input_fields
from ..report import Diagnostic
from .context import EquivContext
from .sim import _cosim
from .verdict import _cex, _conclude, _set_cex

DEEP_CYCLES = (1 << 17) + 64     # the bug search without a formal check: as deep as ABC's sim3


def _random_vectors(inputs: list, cycles: int, reset, active, seed: int, deep=None) -> list:
    """Biased random stimulus: corner values often, the reset held for 2 cycles then now and then.
    `deep` (the bug search where no formal check is possible, see _deep_stimulus) adds held
    inputs, other resets mostly inactive, and values built field by field from the bit slices
    the reference uses (a float's sign/exponent/mantissa each 0, all ones, 1 or random)."""
    rnd = random.Random(seed)
    deep = deep or {}
    slices, others, hold = deep.get("slices", {}), deep.get("resets", {}), deep.get("hold", 0.0)
    vecs = []
    prev = {}
    for c in range(cycles):
        v = {}
        for n, w in inputs:
            if hold and c >= 2 and n in prev and rnd.random() < hold:
                v[n] = prev[n]
                continue
            if n == reset or n in others:
                on = c < 2 or rnd.random() < 0.01
                act = active if n == reset else others[n]
                v[n] = act if on else 1 - act
                continue
            r = rnd.random()
            if w == 1:
                v[n] = rnd.getrandbits(1)
            elif n in slices and r < 0.3:
                v[n] = _by_fields(rnd, slices[n])
            elif r < 0.1:
                v[n] = 0
            elif r < 0.2:
                v[n] = (1 << w) - 1
            elif r < 0.3:
                v[n] = rnd.randrange(min(4, 1 << w))
            elif r < 0.35:
                v[n] = 1 << rnd.randrange(w)
            else:
                v[n] = rnd.getrandbits(w)
        vecs.append(v)
        prev = v
    return vecs


def _by_fields(rnd, fields: list) -> int:
    """A value whose fields [(lo, width)] are each 0, all ones, 1 or random."""
    v = 0
    for lo, w in fields:
        r = rnd.random()
        f = 0 if r < 0.3 else (1 << w) - 1 if r < 0.6 else 1 if r < 0.7 else rnd.getrandbits(w)
        v |= f << lo
    return v


def _deep_stimulus(ref: dict, inputs: list, clock, reset) -> dict:
    """What _random_vectors(deep=...) needs, read from the reference source: the bit slices
    of each input (`a[30:23]`), and other 1-bit inputs named like a reset (their polarity from
    the name: ..n / .._n active low)."""
    text = "\n".join(t for t in ref.values() if isinstance(t, str))
    slices = input_fields(text, inputs)
    resets = {n: 0 if re.search(r"(_n|n)$", n) else 1 for n, w in inputs
              if w == 1 and n not in (clock, reset) and re.search(r"(?i)rst|reset", n)}
    return {"slices": slices, "resets": resets, "hold": 0.3}


def sim_ready(ctx: EquivContext):
    """No simulation (the preprocessor failed) or no time left for it: conclude from what the
    formal checks said."""
    if ctx.gpre is None:
        return _conclude(ctx, None)
    if time.monotonic() > ctx.deadline - 0.5:
        ctx.notes.append("no time left for co-simulation")
        return _conclude(ctx, None)
    return None


def random_cosim(ctx: EquivContext):
    """Random (or deep) co-simulation; always concludes."""
    res, inputs, sim_clock, sequential, reset = ctx.res, ctx.inputs, ctx.sim_clock, ctx.sequential, ctx.reset
    in_bits = sum(w for _, w in inputs)
    # no formal check possible (a design Yosys cannot read): a deep bug search instead of a short one
    deep = _deep_stimulus(ctx.ref, inputs, sim_clock, reset) if not ctx.formal else None
    cycles = max(ctx.cosim_cycles, DEEP_CYCLES) if deep else ctx.cosim_cycles
    cycles = cycles if sequential else min(cycles, 1 << min(30, in_bits))
    vecs = _random_vectors([(n, w) for n, w in inputs if n != sim_clock], max(1, cycles), reset if sequential else None,
                           ctx.active, ctx.seed, deep)
    cs = _cosim(ctx.gpre, ctx.tpre, ctx.top, ctx.gold.ports, sim_clock, vecs, bool(reset) and sequential, ctx.root,
                ctx.deadline, "random")
    res.data["cosim_seconds"] = round(cs.get("seconds", 0.0), 3)
    if cs.get("mismatch"):
        data, text = _cex(vecs, [(n, w) for n, w in inputs], sim_clock, reset, cs["mismatch"], "random co-simulation",
                          sequential)
        return _set_cex(res, data, text, "cosim")
    if not cs["ok"] and cs["error"] == "timeout" and cs.get("cycles"):
        ctx.notes.append(f"co-simulation stopped at the time limit after {cs['cycles']} of {len(vecs)} cycles")
        return _conclude(ctx, cs["cycles"])
    if not cs["ok"]:
        ctx.notes.append(f"co-simulation: {cs['error']}")
        if "stopped early" in cs["error"]:
            res.status = "counterexample"
            res.data.update({"verdict": "counterexample", "method": "cosim"})
            res.diagnostics = [Diagnostic(n) for n in ctx.notes]
            return res
        return _conclude(ctx, None)
    return _conclude(ctx, cs["cycles"])
