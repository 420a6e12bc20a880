"""The evaluation stages, one table in the order a candidate goes through them (every consumer derives
from it: the flow walks it, the regression's fail_<stage> columns, the optimizer's penalties). A new stage
is one row here and one adapter function (eda/adapters.py).

    screen     refuse unsafe or malformed sources before any tool runs
    lint       Icarus, then Verilator --lint-only
    sim        the task's self-checking testbench
    interface  same ports as the reference (runs as part of equiv)
    equiv      formal equivalence / bounded check / co-simulation against the reference
    synth      Yosys to the PDK's cells: area
    sta        OpenSTA: delay, power
    pnr        OpenROAD place and route, then OpenSTA on the routed wires (not a default stage: ~30 s a design)
"""
from dataclasses import dataclass


@dataclass(frozen=True)
class Stage:
    name: str
    group: str                 # "front": depends on the testbench/reference; "back": on the PDK and clock
    inputs: tuple              # what it reads ("sources", "tb", "ref", "netlist"); a requested stage pulls in
    outputs: tuple             # the stage that outputs what it reads (synth runs for sta and pnr)
    adapter: str               # "module:function" that runs it (resolved when it runs: this table stays light)
    penalty: float             # optimize's reward for a candidate that fails here
    key: tuple = ()            # FlowJob fields its result depends on beyond its group's cache key
    tool: str | None = None    # a tool outside eda.tools.versions(): its version joins the key when it runs
    default: bool = True       # in the default stage list
    run_with: str | None = None


TABLE = (
    Stage("screen", "front", ("sources",), (), "eda.adapters:screen", -0.8),
    Stage("lint", "front", ("sources",), (), "eda.adapters:lint", -0.8),
    Stage("sim", "front", ("sources", "tb"), (), "eda.adapters:sim", -0.6),
    Stage("interface", "front", ("sources", "ref"), (), "eda.adapters:equiv", -0.5, run_with="equiv"),
    Stage("equiv", "front", ("sources", "ref"), (), "eda.adapters:equiv", -0.5),
    Stage("synth", "back", ("sources",), ("netlist",), "eda.adapters:synth", -0.4),
    Stage("sta", "back", ("netlist",), (), "eda.adapters:sta", -0.3),
    Stage("pnr", "back", ("netlist",), (), "eda.adapters:pnr", -0.3, key=("pnr",), tool="openroad", default=False),
)
BY_NAME = {s.name: s for s in TABLE}
STAGES = tuple(s.name for s in TABLE if s.default)            # the default list
FRONT = tuple(s.name for s in TABLE if s.default and s.group == "front")
BACK = tuple(s.name for s in TABLE if s.default and s.group == "back")
KNOWN = tuple(s.name for s in TABLE)                          # defaults and optional stages (pnr)
RUN_WITH = {s.name: s.run_with for s in TABLE if s.run_with}  # run as part of another; not asked for alone
# optimize's penalties: the default stages' (the inner loop runs no others, and a run's penalties are a resume key)
PENALTIES = {s.name: s.penalty for s in TABLE if s.default}
