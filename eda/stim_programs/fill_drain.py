"""FIFO fill-to-full then drain: the sinks refuse everything for N cycles while sources push at full rate
(full flags, back-pressure to the input), then accept (the drain, empty flags)."""
from .engine import Params

NAME = "fill_drain"
SUMMARY = "sinks stalled N cycles while sources push, then drained"


def applies(ifc) -> bool:
    return bool(ifc.sources) and bool(ifc.sinks)


def variants(ifc) -> list:
    return [Params(cycles=200, hold_ready=40), Params(cycles=600, hold_ready=300),
            Params(cycles=3000, hold_ready=2000, valid="p50"), Params(cycles=600, hold_ready=100, ready="burst")]
