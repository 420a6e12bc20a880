"""Strategy `clocking`: the clock and reset (given, or detected from the flip-flops and the
reference's source), the reset's polarity, and whether the miter needs clk2fflogic."""
import re

from ..hdl import detect_clock_reset
from .base import _Fail
from .context import EquivContext


def clocking(ctx: EquivContext):
    from ..ports import Port
    gold, gate = ctx.gold, ctx.gate
    sequential = gold.state or gate.state
    plist = [Port(n, d, w) for n, (d, w) in gold.ports.items()]
    g_clock, g_reset, g_low = detect_clock_reset(plist, "\n".join(t for t in ctx.ref.values() if isinstance(t, str)))
    clocks = gold.clocks | gate.clocks
    clock, reset, reset_active_low = ctx.clock, ctx.reset, ctx.reset_active_low
    if clock is None and sequential:
        ports_clk = {p for p, _ in clocks}
        clock = next(iter(ports_clk)) if len(ports_clk) == 1 else g_clock
    if reset is None and sequential:
        reset = g_reset
    if reset_active_low is None:
        reset_active_low = g_low if reset == g_reset else bool(re.search(r"(_n|n)$", reset or ""))
    for name, what in ((clock, "clock"), (reset, "reset")):
        if name is not None and gold.ports.get(name, ("", 0)) != ("input", 1):
            raise _Fail("error", f"{what} '{name}' is not a 1-bit input of '{ctx.top}'")
    fflogic = sequential and (gold.complex_clocking or gate.complex_clocking or len(clocks) > 1
                              or (clock is not None and clocks and next(iter(clocks))[0] != clock))
    ctx.clock, ctx.reset, ctx.reset_active_low = clock, reset, reset_active_low
    ctx.sequential, ctx.active, ctx.fflogic = sequential, 0 if reset_active_low else 1, fflogic
    ctx.res.data.update({"sequential": sequential, "clock": clock, "reset": reset,
                         "reset_active_low": bool(reset_active_low), "clocking": "clk2fflogic" if fflogic else "single"})
    ctx.inputs = [(n, w) for n, (d, w) in gold.ports.items() if d == "input"]
    return None
