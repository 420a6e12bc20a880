"""Strategy `sat`: the Yosys miter and SAT (combinational: a proof; sequential: induction
from reset, else a bounded check of `depth` cycles), with the ABC export started beside
sequential induction.  A proof ends the check; anything else is left in ctx.sat."""
import re
import time

from ..scripts import render
from ..sandbox import run
from ..tools import YOSYS
from .abc import _stop, start_export
from .base import _limits
from .context import EquivContext
from .trace import _parse_trace
from .verdict import _proven


def _sat_command(ctx: EquivContext, deadline: float) -> str:
    """The `sat` line of the miter script."""
    use_fflogic, reset, clock = ctx.fflogic, ctx.reset, ctx.clock
    sat = "sat -prove trigger 0 -show-inputs -show-outputs"
    left = max(1, int(deadline - time.monotonic()))
    if ctx.gold.state or ctx.gate.state:
        sets, skip = [], 0
        if reset:
            n = 3 if use_fflogic else 1       # fflogic: an edge needs clk 0 -> 1 inside the reset
            sets += [f"-set-at {k} in_{reset} {ctx.active}" for k in range(1, n + 1)]
            if use_fflogic and clock:
                sets += [f"-set-at {k} in_{clock} {v}" for k, v in ((1, 0), (2, 1), (3, 0))]
            skip = n
        steps = ctx.depth * (2 if use_fflogic else 1) + skip
        sat += f" -tempinduct -set-init-zero {' '.join(sets)} {'-seq %d' % skip if skip else ''} -maxsteps {steps}"
    return sat + f" -timeout {left} miter"


def _sat(ctx: EquivContext, deadline: float) -> dict:
    """Run the miter; returns {verdict: proven|bounded|counterexample|unknown|error, trace, log, depth}."""
    gold, gate = ctx.gold, ctx.gate
    prep = "clk2fflogic" if ctx.fflogic else "async2sync"
    sequential = gold.state or gate.state
    sat = _sat_command(ctx, deadline)
    (ctx.root / "miter.ys").write_text(render("equiv_miter.ys", gold=gold.il.name, gate=gate.il.name, prep=prep, sat=sat))
    r = run(YOSYS.script_cmd("miter.ys", quiet=False), ctx.root, _limits(deadline))
    out = r.out
    res = {"log": out[-3000:], "seconds": r.seconds, "method": "sat-induction" if sequential else "sat"}
    if r.timed_out:
        res["verdict"] = "unknown"
    elif "SUCCESS!" in out:
        res["verdict"] = "proven"
    elif "FAIL!" in out:
        res["verdict"], res["trace"] = "counterexample", _parse_trace(out)
    elif "Reached maximum number of time steps" in out:
        res["verdict"], res["depth"] = "bounded", ctx.depth
    elif re.search(r"(?i)timeout|timed out", out.split("Executing SAT pass", 1)[-1]):
        res["verdict"] = "unknown"
    else:
        err = next((ln.strip() for ln in out.splitlines() if "ERROR" in ln), f"yosys exit {r.rc}")
        res["verdict"], res["error"] = "error", err
    return res


def sat(ctx: EquivContext):
    """Formal: proof, induction, bounded check (an error verdict when a design is simulation-only)."""
    res = ctx.res
    if not ctx.formal:
        ctx.sat = {"verdict": "error", "error": ctx.gold.problems[0] if ctx.gold.il is None else ctx.gate.problems[0],
                   "log": "", "seconds": 0.0, "method": "cosim"}
    else:
        keep = 0.7 if ctx.sequential else 0.35      # left for what follows (sequential: ABC when induction does not close)
        sat_done = start_export(ctx) if ctx.sequential else None
        ctx.sat = _sat(ctx, ctx.deadline - keep * (ctx.deadline - time.monotonic()))
        if ctx.export is not None and ctx.verdict in ("proven", "counterexample"):
            sat_done.set()          # an export still waiting to start is not needed
        if ctx.verdict == "proven" and ctx.export is not None:
            _stop(ctx.export)
    res.log = ctx.sat["log"]
    res.data["sat_seconds"] = round(ctx.sat["seconds"], 3)
    if ctx.verdict == "proven":
        return _proven(res, ctx.sat["method"])
    if ctx.sat.get("error"):
        ctx.notes.append(f"formal check not possible: {ctx.sat['error']}")
    elif ctx.verdict == "unknown":
        ctx.notes.append("formal check timed out")
    return None
