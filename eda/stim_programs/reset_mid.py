"""Reset in the middle of a transfer: traffic runs, reset pulses two cycles while frames are in flight, traffic
goes on (the reset arms of every register with state, partial frames dropped)."""
from .engine import Params

NAME = "reset_mid"
SUMMARY = "reset pulsed in the middle of a transfer, then traffic again"


def applies(ifc) -> bool:
    return bool(ifc.reset)


def variants(ifc) -> list:
    return [Params(cycles=300, frame=3, reset_at=6, ready="p50"), Params(cycles=400, reset_at=40, valid="p50", others="fresh")]
