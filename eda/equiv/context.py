"""EquivContext: everything one equivalence check knows, handed from strategy to strategy.

The driver fills the request (sources, tops, options, sandbox root, deadline, the result
being built); each strategy reads what the earlier ones left and adds its own findings."""
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..report import StageResult
from .base import _Design


@dataclass
class EquivContext:
    # the request
    cand: dict                   # candidate sources, name -> text
    ref: dict                    # reference sources
    top: str                     # candidate top
    ref_top: str                 # reference top
    clock: str | None            # given, then detected (clocking)
    reset: str | None
    reset_active_low: bool | None
    depth: int                   # SAT / BMC depth in cycles
    cosim_cycles: int            # random co-simulation cycles
    seed: int
    root: Path                   # the sandbox folder
    deadline: float              # time.monotonic() at which everything must be done
    res: StageResult             # the result being built
    use_abc: bool = True         # False: no ABC engines after SAT induction (an engine left out, as in SymbiYosys)
    # elaboration and clocking
    gold: _Design | None = None
    gate: _Design | None = None
    sequential: bool = False
    active: int = 1              # the reset's active level
    fflogic: bool = False        # clk2fflogic (several clocks, latches, ...) instead of one step per cycle
    inputs: list = field(default_factory=list)      # [(name, width)] of the reference's inputs
    small_comb: bool = False     # combinational with few input bits: exhaustive simulation
    # formal
    export: Any = None           # the ABC AIGER export (a Future) started beside SAT induction
    sat: dict = field(default_factory=dict)         # what _sat said (verdict, trace, log, method, ...)
    abc: dict | None = None      # what _abc said, when it ran
    notes: list = field(default_factory=list)       # diagnostics of an inconclusive result
    # simulation
    gpre: str | None = None      # the reference after Icarus' preprocessor, modules renamed gold_*
    tpre: str | None = None      # the candidate, gate_*
    mismatch: dict | None = None  # a formal counterexample that Icarus does not reproduce

    @property
    def verdict(self) -> str:
        """The formal verdict: proven | bounded | counterexample | unknown | error."""
        return self.sat["verdict"]

    @property
    def formal(self) -> bool:
        """Both designs elaborated in Yosys (a formal check is possible)."""
        return self.gold.il is not None and self.gate.il is not None

    @property
    def sim_clock(self):
        """The clock the testbench drives (None: combinational, or no clock)."""
        return self.clock if (self.sequential and self.clock) else None
