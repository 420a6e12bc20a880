"""`rtl-agent eval`: score one design through every EDA stage."""
import json
import sys

from eda.flow import ALL_STAGES, KNOWN_STAGES, FlowJob, evaluate
from eda.pdk import DEFAULT_PDK, PDKS
from eda.verdict import get_rule
from rtl_agent.commands import design_args
from rtl_agent.show import print_report


def register(sub):
    p = sub.add_parser("eval", help="score one design: lint, simulate, prove, synthesize, time, power",
                       description="Run a design through the EDA stages in order (screen, lint, sim, equiv, synth, "
                       "sta), stopping at the first failure. Prints a table, or one JSON object with --json "
                       "(keys: status, stages.<name>.status, area_um2, delay_ns, power_w, ppa; see README). "
                       "Exit code 0 only when every requested stage passed.")
    design_args.add(p, sources=True)
    p.add_argument("--top", default=None, help="top module name (default: the one module no other instantiates)")
    p.add_argument("--pdk", default=DEFAULT_PDK, choices=sorted(PDKS),
                   help=f"standard-cell library (default {DEFAULT_PDK})")
    p.add_argument("--corner", default=None, help="library corner (" +
                   "; ".join(f"{n}: {'|'.join(p.libs)}" for n, p in PDKS.items()) + ")")
    p.add_argument("--clock", type=float, default=10.0, metavar="NS", help="clock period in ns (default 10)")
    p.add_argument("--clock-port", default="auto", help="clock port name (default: detect; none for combinational)")
    p.add_argument("--tb", nargs="+", default=None, help="self-checking testbench file(s) and data files it reads; "
                   "a Python test module (test_x.py) runs through cocotb")
    p.add_argument("--verdict", default=None, metavar="RULE",
                   help="how the testbench's output decides pass: a preset (rtllm | verilog-eval | cocotb) or JSON "
                   "{\"pass\": REGEX, \"fail\": [REGEX...], \"mismatches\": REGEX-with-a-count-group (must be 0)} "
                   "(default: detected from the testbench; the report names it in stages.sim.data.verdict_rule)")
    p.add_argument("--tb-top", default=None, help="testbench top module (default: detect)")
    p.add_argument("--ref", nargs="+", default=None, help="reference RTL: adds interface and equivalence stages")
    p.add_argument("--reset", default=None, help="reset port for sequential equivalence (default: detect)")
    p.add_argument("--stages", default=",".join(ALL_STAGES),
                   help=f"comma list from {','.join(KNOWN_STAGES)} (default: {','.join(ALL_STAGES)}; pnr: OpenROAD "
                   "place and route, then timing and power with the routed wires, ~30 s a small design)")
    p.add_argument("--utilization", type=float, default=None, help="pnr: core utilization (default 0.4)")
    p.add_argument("--aspect-ratio", type=float, default=None, help="pnr: core height/width (default 1.0)")
    p.add_argument("--keep", default=None, metavar="DIR", help="pnr: copy the routed DEF, netlist and SPEF "
                   "here (default: a folder of the evaluation cache, named in stages.pnr.data.def)")
    p.add_argument("--no-cache", action="store_true", help="ignore and do not fill the evaluation cache")
    p.add_argument("--json", action="store_true", help="print one JSON object instead of a table")
    p.set_defaults(func=run)


def run(args) -> int:
    stages = tuple(s.strip() for s in args.stages.split(",") if s.strip())
    bad = [s for s in stages if s not in KNOWN_STAGES]
    if bad:
        raise ValueError(f"unknown stage(s) {', '.join(bad)}; choose from {', '.join(KNOWN_STAGES)}")
    pnr = {k: v for k, v in (("utilization", args.utilization), ("aspect_ratio", args.aspect_ratio)) if v is not None}
    clock = None if args.clock_port == "none" else args.clock_port
    design = design_args.texts(args)
    args.top = design_args.check_top(design, args.top)
    ref = design_args.texts(args, args.ref) if args.ref else None   # the same defines, folders and parameters
    job = FlowJob(top=args.top, pdk=args.pdk, corner=args.corner, tb=args.tb, tb_top=args.tb_top, ref=ref,
                  clock=clock, reset=args.reset, period=args.clock, stages=stages, use_cache=not args.no_cache,
                  verdict=get_rule(args.verdict), options={"pnr": pnr}, keep=args.keep)
    rep = evaluate(job, design)
    if args.json:
        json.dump(rep.to_dict(), sys.stdout, indent=2)
        print()
    else:
        print_report(rep)
    return 0 if rep.ok else 1
