"""The equivalence driver: screen the candidate, build one EquivContext in a sandbox, and run
the strategies in order until one returns the result (the verdicts: see the package doc).

Each strategy takes the context and returns the finished StageResult, or None to hand on to
the next; a `_Fail` from any of them ends the check with its status."""
import time

from ..report import Diagnostic, StageResult
from ..sandbox import Sandbox
from ..screen import screen
from ..tools import ICARUS, YOSYS
from .abc import abc
from .base import _Fail
from .clocking import clocking
from .context import EquivContext
from .cosim import random_cosim, sim_ready
from .elaborate import elaborate
from .exhaustive import exhaustive_first, exhaustive_last
from .replay import replay_abc, replay_sat
from .sat import sat
from .sim import preprocess

STRATEGIES = (
    elaborate,          # Yosys elaboration (simulation only for a design Yosys cannot read), interface
    clocking,           # clock, reset, polarity, clk2fflogic or not
    exhaustive_first,   # small combinational: every input vector (half the time)
    sat,                # SAT / SAT induction / bounded check; the ABC export starts beside induction
    abc,                # induction did not close: ABC sim3, dprove, PDR
    preprocess,         # both designs through Icarus' preprocessor
    replay_abc,         # an ABC counterexample replayed in Icarus
    replay_sat,         # a SAT counterexample replayed in Icarus
    sim_ready,          # nothing to simulate or no time left: conclude
    exhaustive_last,    # small combinational, when the first try could not run
    random_cosim,       # random (or deep) co-simulation; concludes
)


def equivalence(cand: dict, ref: dict, top: str, clock=None, reset=None, reset_active_low=None, depth=20,
                cosim_cycles=2000, timeout_s=60, seed=1, ref_top: str | None = None,
                screened: bool = False, abc: bool = True) -> StageResult:
    """Compare candidate sources (name -> text) with the reference; see the module doc for verdicts.
    screened: the caller (eda.flow) has already screened these sources; otherwise they are screened here.
    abc: False leaves the ABC engines (dprove, PDR, sim3) out after SAT induction."""
    t0 = time.monotonic()
    deadline = t0 + timeout_s
    res = StageResult("equiv", "error", tool="yosys+icarus",
                      version=f"{YOSYS.version()}; {ICARUS.version()}")
    bad = [] if screened else [r for name, text in cand.items()
                               for r in (screen(text, name) if isinstance(text, str) else [f"{name}: not text"])]
    if bad:
        res.status, res.diagnostics = "rejected", [Diagnostic(b) for b in bad]
        res.data = {"verdict": "rejected"}
        return res
    try:
        with Sandbox(prefix="rtla-equiv-") as sb:
            _run(EquivContext(cand, ref, top, ref_top or top, clock, reset, reset_active_low, depth, cosim_cycles,
                              seed, sb.path, deadline, res, use_abc=abc))
    except _Fail as f:
        res.status = f.status
        res.diagnostics.append(Diagnostic(f.message))
        res.data.update(f.data)
        res.data.setdefault("verdict", f.status)
        res.log = f.log
    except Exception as e:  # a crash here must not take the caller down
        res.status = "error"
        res.diagnostics.append(Diagnostic(f"equivalence check crashed: {e.__class__.__name__}: {e}"))
        res.data.setdefault("verdict", "error")
    res.seconds = round(time.monotonic() - t0, 3)
    res.data["seconds"] = res.seconds
    return res


def _run(ctx: EquivContext):
    """The strategies in order, until one decides."""
    for strategy in STRATEGIES:
        if strategy(ctx) is not None:
            return
