"""The evaluation stages, one registry in the order a candidate goes through them (every consumer derives
from it: the flow walks it, the regression's fail_<stage> columns, the optimizer's penalties). A stage
declares its name, what it reads, its options with their defaults and the files it keeps; the flow runs
the registered stages without naming any. A new stage is one module (its function) and one row here
(or `register(...)` at run time).

    screen     refuse unsafe or malformed sources before any tool runs
    lint       Icarus, then Verilator --lint-only
    sim        the task's self-checking testbench
    interface  same ports as the reference (runs as part of equiv)
    equiv      formal equivalence / bounded check / co-simulation against the reference
    synth      Yosys to the PDK's cells: area
    sta        OpenSTA: delay, power
    pnr        OpenROAD place and route, then OpenSTA on the routed wires (not a default stage: ~30 s a design)
"""
import importlib
from dataclasses import dataclass

GROUPS = ("front", "back")


@dataclass(frozen=True)
class Stage:
    name: str
    group: str                 # "front": depends on the testbench/reference; "back": on the PDK and clock
    inputs: tuple              # what it reads ("sources", "tb", "ref", "netlist"); a requested stage pulls in
    outputs: tuple             # the stage that outputs what it reads (synth runs for sta and pnr)
    adapter: str               # "module:function" that runs it (resolved when it runs: this table stays light)
    penalty: float             # optimize's reward for a candidate that fails here
    # its options with their defaults (FlowJob.options[name] overrides them; what a job gives joins its
    # group's cache key); None: it takes none
    options: dict | None = None
    artifacts: tuple = ()      # files it keeps (in FlowJob.keep, else a folder of the cache) when it passes
    tool: str | None = None    # a tool outside eda.tools.versions(): its version joins the key when it runs
    default: bool = True       # in the default stage list
    always: bool = False       # runs whenever its group runs, asked for or not
    run_with: str | None = None
    describe: str | None = None  # "module:function": its result's data as one line for a person (eda.describe)

    def run(self, ctx):
        """A StageResult, a list of them, or None when the stage does not apply (eda.adapters)."""
        mod, fn = self.adapter.split(":")
        return getattr(importlib.import_module(mod), fn)(ctx)

    def details(self, data: dict) -> str:
        """Its result's data as one line ('' when the stage has no describe function)."""
        if not self.describe:
            return ""
        mod, fn = self.describe.split(":")
        return getattr(importlib.import_module(mod), fn)(data)


TABLE = [
    Stage("screen", "front", ("sources",), (), "eda.adapters:screen", -0.8, always=True),
    Stage("lint", "front", ("sources",), (), "eda.adapters:lint", -0.8),
    Stage("sim", "front", ("sources", "tb"), (), "eda.adapters:sim", -0.6, describe="eda.describe:sim"),
    Stage("interface", "front", ("sources", "ref"), (), "eda.adapters:equiv", -0.5, run_with="equiv"),
    # equiv's options are eda.equiv.equivalence's keyword arguments (depth, seed, ...), with its defaults
    Stage("equiv", "front", ("sources", "ref"), (), "eda.adapters:equiv", -0.5, options={}),
    Stage("synth", "back", ("sources",), ("netlist",), "eda.adapters:synth", -0.4, describe="eda.describe:synth"),
    Stage("sta", "back", ("netlist",), (), "eda.adapters:sta", -0.3, describe="eda.describe:sta"),
    Stage("pnr", "back", ("netlist",), (), "eda.adapters:pnr", -0.3,
          options={"utilization": 0.4, "aspect_ratio": 1.0, "margin_um": 2.0, "density": 0.6, "cts": True},
          artifacts=("routed.def", "routed.v", "routed.spef", "openroad.log"), tool="openroad", default=False,
          describe="eda.describe:pnr"),
]
BY_NAME = {s.name: s for s in TABLE}
# the built-in table's lists (a stage registered at run time is in TABLE and BY_NAME only)
STAGES = tuple(s.name for s in TABLE if s.default)            # the default list
FRONT = tuple(s.name for s in TABLE if s.default and s.group == "front")
BACK = tuple(s.name for s in TABLE if s.default and s.group == "back")
KNOWN = tuple(s.name for s in TABLE)                          # defaults and optional stages (pnr)
RUN_WITH = {s.name: s.run_with for s in TABLE if s.run_with}  # run as part of another; not asked for alone
# optimize's penalties: the default stages' (the inner loop runs no others, and a run's penalties are a resume key)
PENALTIES = {s.name: s.penalty for s in TABLE if s.default}


def register(stage: Stage, before: str | None = None) -> Stage:
    """Add a stage to the registry: at the end, or before the stage named `before` (the flow runs a
    group's stages in registry order)."""
    if stage.name in BY_NAME:
        raise ValueError(f"a stage named '{stage.name}' is registered already")
    if stage.group not in GROUPS:
        raise ValueError(f"stage group must be one of {', '.join(GROUPS)} (got '{stage.group}')")
    TABLE.insert(TABLE.index(BY_NAME[before]) if before else len(TABLE), stage)
    BY_NAME[stage.name] = stage
    return stage


def unregister(name: str):
    TABLE.remove(BY_NAME.pop(name))
