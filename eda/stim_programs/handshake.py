"""Valid/ready traffic with back-pressure: every source and sink of the design at once, in the patterns a
verification engineer sweeps (full throughput, random stalls on either side, bursts)."""
from .engine import Params

NAME = "handshake"
SUMMARY = "valid/ready traffic on every stream, with back-pressure patterns"


def applies(ifc) -> bool:
    return bool(ifc.streams)


def variants(ifc) -> list:
    pairs = [("always", "always"), ("always", "p50"), ("p50", "always"), ("p50", "p50"), ("p10", "p10"),
             ("burst", "burst")]
    # the last withdraws unanswered requests (PCPI-like interfaces answer only what they decode)
    return [Params(cycles=500, valid=v, ready=r) for v, r in pairs] + [Params(cycles=1000, valid="p50", timeout=16)]
