"""Strategies `replay_abc` and `replay_sat`: a formal counterexample is replayed in Icarus
before it is reported, because SAT reads reference X as 0 and starts registers at zero.  A
trace the simulator confirms is the counterexample; one it does not is kept in
ctx.mismatch (reported as unknown(replay-mismatch) unless co-simulation finds a difference)."""
from .context import EquivContext
from .sim import _cosim
from .trace import _trace_vectors
from .verdict import _cex, _replay_summary, _set_cex


def replay_abc(ctx: EquivContext):
    """An ABC counterexample (sim3, dprove, PDR) through Icarus."""
    a = ctx.abc
    if a is None or a["verdict"] != "counterexample" or ctx.gpre is None:
        return None
    rclk = None if ctx.fflogic else ctx.sim_clock
    vecs = a["vectors"] if rclk is None else [{k: x for k, x in v.items() if k != rclk} for v in a["vectors"]]
    # outputs are compared from 64 cycles before ABC's first failing frame (long traces replay fast)
    rep = _cosim(ctx.gpre, ctx.tpre, ctx.top, ctx.gold.ports, rclk, vecs, bool(ctx.reset) and ctx.sequential,
                 ctx.root, ctx.deadline, "abc", check_from=max(0, (a.get("frame") or 0) - 64))
    if rep.get("mismatch"):
        data, text = _cex(vecs, [(n, w) for n, w in ctx.inputs if n != rclk], rclk, ctx.reset, rep["mismatch"],
                          f"{a['method']} (replayed in icarus)", ctx.sequential)
        return _set_cex(ctx.res, data, text, a["method"])
    ctx.mismatch = {"found_by": a["method"], "frame": a.get("frame"), "cycles": len(vecs),
                    "trace_tail": vecs[-8:], "replay": _replay_summary(rep)}
    ctx.notes.append(f"{a['method']} counterexample at frame {a.get('frame')} not reproduced in Icarus")
    return None


def replay_sat(ctx: EquivContext):
    """A SAT counterexample through Icarus; reported from SAT's own values when it cannot be
    replayed (clk2fflogic traces of a clocked design, or a testbench Icarus cannot compile)."""
    if ctx.verdict != "counterexample":
        return None
    sat, sim_clock = ctx.sat, ctx.sim_clock
    vecs, first = _trace_vectors(sat.get("trace", {}), ctx.inputs, ctx.fflogic, sim_clock)
    mapped = vecs if not (ctx.fflogic and sim_clock) else None
    if ctx.gpre is None or not mapped:
        return _sat_cex_unreplayed(ctx, vecs, first)
    rclk = None if ctx.fflogic else sim_clock
    rep = _cosim(ctx.gpre, ctx.tpre, ctx.top, ctx.gold.ports, rclk, mapped, bool(ctx.reset) and ctx.sequential,
                 ctx.root, ctx.deadline, "replay")
    if rep.get("mismatch"):
        data, text = _cex(mapped, ctx.inputs, rclk, ctx.reset, rep["mismatch"], "sat (replayed in icarus)",
                          ctx.sequential)
        return _set_cex(ctx.res, data, text, sat["method"])
    if not rep["ok"] and "cannot compile" in rep.get("error", ""):
        return _sat_cex_unreplayed(ctx, vecs, first)
    ctx.mismatch = {"found_by": sat["method"], "frame": first, "cycles": len(mapped),
                    "sat_trace": {str(k): v for k, v in sat.get("trace", {}).items()},
                    "replay": _replay_summary(rep)}
    ctx.notes.append("SAT counterexample not reproduced in Icarus (X or initial-value semantics differ "
                     "between SAT and simulation); random co-simulation looked for a difference next")
    return None


def _sat_cex_unreplayed(ctx: EquivContext, vecs: list, first: int):
    """Report a SAT counterexample that could not be replayed, from SAT's own output values."""
    sat, inputs = ctx.sat, ctx.inputs
    trace = sat.get("trace", {})
    steps = sorted(trace)
    outs = {}
    if steps:
        last = trace[steps[min(first, len(steps) - 1)]]
        for n, (d, w) in ctx.gold.ports.items():
            if d == "output" and last.get(f"gold_{n}") != last.get(f"gate_{n}"):
                outs[n] = (last.get(f"gate_{n}", "?"), last.get(f"gold_{n}", "?"))
    data, text = _cex(vecs or [{}], [(n, w) for n, w in inputs], ctx.sim_clock, None,
                      {"cycle": min(first, max(0, len(vecs) - 1)), "phase": 0, "outputs": outs}, "sat", ctx.sequential)
    return _set_cex(ctx.res, data, text + " (from the SAT model; not replayed in simulation)", sat["method"])
