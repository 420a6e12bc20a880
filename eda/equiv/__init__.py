"""Is a candidate the same circuit as the reference?  Interface check, formal
equivalence (Yosys miter + SAT), bounded model check, random co-simulation.

An optimizer rewarded by a weak testbench learns the testbench; this stage is the
guard.  `equivalence(...).status` is the verdict itself:

    proven             a proof; data.method: `exhaustive simulation` (small combinational),
                       `sat` (combinational), `sat-induction`, `abc-dprove`, `abc-pdr` (sequential)
    bounded(N)         no difference in the first N cycles after reset (nothing closed a proof)
    cosim(K vectors)   formal check unavailable/timed out; K random cycles agreed in Icarus
                       (a design Yosys cannot read: a deep search, 2^17+64 cycles, see below)
    counterexample     the designs differ; data/diagnostics hold the inputs per cycle
                       (data.method: sat, sat-induction, abc-sim3, abc-dprove, abc-pdr, cosim, structural)
    unknown(timeout)   nothing conclusive within the time limit
    unknown(replay-mismatch)  SAT or ABC found a difference that the Icarus replay does not
                       reproduce (X / initial-value semantics); data.replay_mismatch holds the
                       formal trace and what the replay said.  Not a pass.
plus `error` (a design does not elaborate), `rejected` (candidate failed screening) and
`fail` (ports differ; see `check_interface`).  bounded/cosim let `eval` go on but are
"unproven": no reward and no `regress --equiv` pass (eda.report.is_proven).

Sequential designs whose induction does not close go to ABC (`yosys-abc`): the miter
(without -make_outputs) is wrapped so that the reset is forced in the first cycle (three
steps with clk2fflogic, with a clock edge inside) and the trigger masked there, all flops
start at zero (as in SAT), and it is written as AIGER twice: reset free afterwards (for
`dprove`: BMC, retiming, induction with fraiging, interpolation, BDD reachability; then `pdr`) and
reset held inactive afterwards (for `sim3`: about 2^17 cycles of random simulation from
reset, for bugs deeper than any BMC).  The AIGER export starts beside SAT induction when SAT
has not decided within EXPORT_DELAY_S.  Memories are mapped to flip-flops at elaboration
(`memory`), so RAM/FIFO/LIFO designs are proven by dprove when their contents correspond.
Out of reach: a proof for designs Yosys cannot elaborate (non-synthesizable event lists, several
edges on one signal): those get a deep random co-simulation instead, 2^17+64 cycles from a
$readmemh file with held inputs, other reset-named inputs mostly inactive and values built field
by field from the bit slices the reference uses (cosim(K): no proof, no reward); several resets
(only the detected one is forced and, in sim3, held); large memories or multipliers whose miter
neither dprove nor PDR decides in the time limit (bounded/cosim, unproven).

Method.  Each design is elaborated on its own (`proc; flatten; memory`) and saved as
RTLIL with its top renamed eqgold/eqgate, so the two never share a module namespace
and `define`s never cross.  Sequential designs start from zero with the reset asserted
in cycle 1; single-clock designs map one SAT step to one clock cycle, anything else
(several clocks, both edges, latches, derived clocks) goes through `clk2fflogic`.
A SAT counterexample is replayed in Icarus before it is reported, because SAT reads
reference X as 0 and starts registers at zero; a trace the simulator does not confirm
is not reported as a counterexample.  Co-simulation compares every output twice per
cycle; X bits of the reference are don't-care, X in the candidate where the reference
is defined is a difference.

Layout (strategies in the spirit of SymbiYosys' engines; driver.STRATEGIES is the order).
`driver.equivalence` screens the candidate and builds one `context.EquivContext`; each
strategy takes it and returns the finished result or None: `elaborate` (Yosys, or ports
only for a design it cannot read; interface and structure), `clocking` (clock, reset,
clk2fflogic), `exhaustive` (small combinational), `sat` (miter, induction, BMC), `abc`
(AIGER export beside induction; sim3, dprove, PDR), `sim.preprocess`, `replay` (formal
counterexamples through Icarus), `cosim` (random / deep co-simulation).  Below them:
`sim` (testbench, Icarus run), `trace` (SAT / ABC traces to vectors), `verdict` (result
text and the inconclusive verdicts), `interface` (`check_interface`), `base`.
"""
from .abc import DPROVE_MAX_S, EXPORT_DELAY_S, SIM_FRAMES
from .cosim import DEEP_CYCLES
from .driver import STRATEGIES, equivalence
from .elaborate import FF_TYPES, OTHER_STATE
from .exhaustive import EXHAUSTIVE_BITS
from .interface import check_interface
from .sim import MEMFILE_CYCLES

__all__ = ["check_interface", "equivalence", "STRATEGIES", "EXHAUSTIVE_BITS", "DEEP_CYCLES", "SIM_FRAMES",
           "DPROVE_MAX_S", "EXPORT_DELAY_S", "MEMFILE_CYCLES", "FF_TYPES", "OTHER_STATE"]
