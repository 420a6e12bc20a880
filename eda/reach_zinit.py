"""Points the simulation cannot reach although a trace exists from some power-up state ("x-start only").

eda.reach proves a point unreachable on prove.aig, where the registers no reset sets start free (any
power-up value). Some points are hit only in the first cycles after reset from such values: picorv32's
multiplier clears its carry register `rdx` one cycle after reset, and a trace where rdx powers up as 1 toggles
its bits there; from all-zero registers those bits never move. Verilator starts every register at 0 (and
--x-assign 0), as wit.aig does, so no stimulus can reach such a point in this simulation: proven on
wit.aig (`pdr -a`, or the output is constant 0 there), the point is unreachable from reset *in the
simulation*, and the verdict says so (method `...-zero-start`), so a reader can count those apart.
"""

REASON = ("never hit from reset when the registers the reset leaves alone start at 0, as Verilator starts them "
          "(no stimulus reaches it in simulation); a trace exists only from other power-up values")


def zero_start(t, abc, share: float) -> str:
    """The method when every witness output of target t is proven never 1 on wit.aig, else ''."""
    if not t.wit:
        return ""
    consts = True
    for o in t.wit:
        st, _, _, note = abc("wit.aig", o, "pdr-a", share / len(t.wit))
        if st != "proved":
            return ""
        consts = consts and bool(note)
    return ("yosys-opt" if consts else "abc-pdr") + "-zero-start"
