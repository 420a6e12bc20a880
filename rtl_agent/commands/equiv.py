"""`rtl-agent equiv`: is a candidate the same circuit as a reference?"""
import argparse
import json
import sys
from pathlib import Path

import yaml

from eda.observe import ObserveError, equivalence, parse as parse_observe
from eda.report import is_pass
from rtl_agent.commands import design_args

DESCRIPTION = """Check that CANDIDATE implements the same circuit as the reference.

Verdicts (exit status 0 only for the first three; bounded and cosim are "unproven": they earn no
optimize reward and do not pass `regress --equiv`):
  proven             formal proof (SAT; temporal induction; ABC dprove for sequential designs
                     induction does not close; exhaustive simulation for small combinational ones)
  bounded(N)         no difference in the first N cycles after reset (proof did not close)
  cosim(K vectors)   formal check impossible or timed out; K random cycles agree in simulation
  counterexample     the designs differ (SAT, ABC dprove, ABC sim3 over 2^17 cycles from reset, or
                     co-simulation; replayed in Icarus); the inputs per cycle and outputs are printed
  unknown(timeout)   nothing conclusive within --timeout
  unknown(replay-mismatch)  a formal counterexample that Icarus does not reproduce (X or initial
                     values); --json shows data.replay_mismatch
Also: error (a design does not elaborate), rejected (candidate failed source screening),
fail (ports differ from the reference).

--observe FILE checks equivalence modulo the specification's don't-cares (spec-level instead of
strict): FILE holds one rule, e.g.
  when: {data_out: valid_out}     # data_out compared only in cycles where valid_out is 1
  reset: free                     # outputs free while reset is asserted (reset_cycles: N: N more cycles)
  cite: "the spec sentence that makes these values don't-cares"
or a file of rules per design (designs/rtllm_observe.yaml), from which --top's entry is taken.
The strict check runs first on half of --timeout (its proof implies the rule; its interface or
elaboration failure stands); otherwise both designs are wrapped so that every check applies the rule.
A reference X is a don't-care in co-simulation and replay only, never in the formal proof."""

EPILOG = """examples:
  rtl-agent equiv my_adder.v --ref verified_adder_32bit.v --top adder_32bit
  rtl-agent equiv cnt.v --ref ref_cnt.v --top counter --clock clk --reset rst_n --reset-active-low
  rtl-agent equiv a.v b.v --ref ref.v --top t --json > verdict.json
  rtl-agent equiv accu.v --ref verified_accu.v --top accu --observe designs/rtllm_observe.yaml
"""


def register(sub):
    p = sub.add_parser("equiv", help="formal equivalence / co-simulation of a candidate against a reference",
                       description=DESCRIPTION, epilog=EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("candidate", nargs="+", type=Path, help="candidate Verilog file(s)")
    p.add_argument("--ref", required=True, nargs="+", type=Path, help="reference Verilog file(s)")
    p.add_argument("--top", required=True, help="top module name (the candidate's)")
    p.add_argument("--ref-top", help="top module name in the reference, when it differs from --top")
    p.add_argument("--clock", help="clock input (default: the flip-flops' clock, else a name like clk)")
    p.add_argument("--reset", help="reset input, asserted in the first cycle (default: guessed from names like rst)")
    p.add_argument("--reset-active-low", action="store_true", default=None,
                   help="the reset is active low (default: guessed from the name and the RTL)")
    p.add_argument("--depth", type=int, default=20, help="cycles for the bounded check and induction (default 20)")
    p.add_argument("--cycles", type=int, default=2000, help="random co-simulation cycles (default 2000)")
    p.add_argument("--timeout", type=float, default=60, help="seconds for the whole check (default 60)")
    p.add_argument("--seed", type=int, default=1, help="seed of the random co-simulation stimulus")
    p.add_argument("--observe", type=Path, metavar="FILE",
                   help="observation rule (YAML): compare only what the specification defines (see above)")
    p.add_argument("--json", action="store_true", help="print one JSON object instead of text")
    design_args.add(p)          # -f/-I/-D/-P apply to the candidate and the reference alike
    p.set_defaults(func=run)


def _observe(path: Path | None, top: str):
    """The rule in FILE: the file itself, or its entry for `top` in a file of rules per design."""
    if path is None:
        return None
    if not path.is_file():
        raise FileNotFoundError(f"--observe: no such file: {path}")
    try:
        obj = yaml.safe_load(path.read_text())
    except yaml.YAMLError as e:
        raise ValueError(f"--observe {path}: not valid YAML: {e}") from None
    if isinstance(obj, dict) and obj and not set(obj) <= {"when", "reset", "reset_cycles", "cite"}:
        if top not in obj:
            raise ValueError(f"--observe {path}: no rule for '{top}' (it has {len(obj)} other entries)")
        obj = obj[top]
    try:
        return parse_observe(obj, f"--observe {path}")
    except ObserveError as e:
        raise ValueError(str(e)) from None


def run(args) -> int:
    if args.depth < 1 or args.cycles < 1 or args.timeout <= 0:
        raise ValueError("--depth and --cycles must be >= 1 and --timeout > 0")
    rule = _observe(args.observe, args.top)
    # read as eval reads a design (a design Icarus or Yosys cannot read is lowered: eda.sv_lower)
    cand = design_args.texts(args, args.candidate)
    ref = design_args.texts(args, args.ref, top=args.ref_top or args.top)
    st = equivalence(cand, ref, args.top, rule, clock=args.clock, reset=args.reset,
                     reset_active_low=args.reset_active_low, depth=args.depth, cosim_cycles=args.cycles,
                     timeout_s=args.timeout, seed=args.seed, ref_top=args.ref_top)
    if args.json:
        print(json.dumps(st.to_dict(), indent=2))
    else:
        d = st.data
        how = f" by {d['method']}" if d.get("method") else ""
        unproven = " (unproven)" if st.status.startswith(("bounded", "cosim")) else ""
        mode = "strict"
        if rule:
            mode = (f"spec-level ({'; '.join(rule.rules())})" if d.get("equiv_mode") == "spec"
                    else "strict, decided before the rule was needed")
        print(f"{args.top}: {st.status}{how}{unproven} in {st.seconds:.2f} s; equivalence: {mode}")
        for diag in st.diagnostics:
            print(f"  {diag.message}")
        cex = d.get("counterexample")
        if cex:
            print("  inputs per cycle:")
            for c in cex["inputs"][-12:]:
                print(f"    cycle {c['cycle']}: " + ", ".join(f"{k}={v}" for k, v in c["inputs"].items()))
            for n, o in cex["outputs"].items():
                print(f"  output {n}: candidate {o['candidate']}, reference {o['reference']}")
    sys.stdout.flush()
    return 0 if is_pass(st.status) else 1
