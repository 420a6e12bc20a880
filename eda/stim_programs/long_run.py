"""Long runs: tens of thousands of cycles of random traffic, for counters, timers and rate limiters that only
wrap late."""
from .engine import Params

NAME = "long_run"
SUMMARY = "long random runs (20k-60k cycles) for late-wrapping counters"


def applies(ifc) -> bool:
    return True


def variants(ifc) -> list:
    return [Params(cycles=20000, valid="p50", ready="p50", others="fresh"),
            Params(cycles=60000, valid="always", ready="burst", frame=0, gap=1)]
