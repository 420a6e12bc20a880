"""Stimulus programs a verification engineer would write, recognised from a design's ports, as a menu of
(program, parameters) options the cover job chooses among (issue #60, item 2).

    ifc = recognise(task.ports, task.clock, task.reset, task.reset_active_low)
    opts = options(ifc)                           # [Option(program, params, label)], the library's order
    tb = testbench(ifc, task.ports, task.top, opts, task.period_ns)   # one module: +opt=K runs option K
    built = Built(sources, task.top, tb, fsms=fsms)                   # one Verilator build
    result = built.run(k, seed)                                       # an eda.coverage.CoverageResult

A program is one module here (NAME, SUMMARY, applies(ifc), variants(ifc) -> [engine.Params]); adding one is a
module plus its name in PROGRAMS. Every option drives the design only through its inputs, from reset, so what
it reaches is reachable; its label (`frames frame=3 gap=4 keep=random cycles=500`) is what a policy scores.
"""
from __future__ import annotations

import importlib
from dataclasses import asdict, dataclass

from .engine import Params, testbench as _testbench
from .interfaces import Interfaces, Stream, recognise
from .runner import Built, plusargs

PROGRAMS = ("handshake", "frames", "axil", "fill_drain", "reset_mid", "corners", "dictionary", "long_run")


@dataclass(frozen=True)
class Option:
    program: str
    params: Params

    @property
    def label(self) -> str:
        return f"{self.program} {self.params.label()}"

    def to_dict(self) -> dict:
        return {"program": self.program, "params": asdict(self.params)}

    @staticmethod
    def from_dict(d: dict) -> "Option":
        return Option(d["program"], Params(**d["params"]))


def module(name: str):
    return importlib.import_module(f"{__name__}.{name}")


def options(ifc: Interfaces) -> list:
    """Every applicable program's variants, in PROGRAMS order (deterministic: the build and the labels
    depend on the ports only)."""
    out = []
    for name in PROGRAMS:
        m = module(name)
        if m.applies(ifc):
            out += [Option(name, p) for p in m.variants(ifc)]
    return out


def testbench(ifc: Interfaces, ports, top: str, opts: list, period_ns: float = 10.0) -> str:
    return _testbench(ifc, ports, top, [o.params for o in opts], period_ns)


__all__ = ["Built", "Interfaces", "Option", "PROGRAMS", "Params", "Stream", "module", "options", "plusargs",
           "recognise", "testbench"]
