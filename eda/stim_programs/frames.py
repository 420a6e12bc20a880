"""AXI-stream frames: tlast closing frames of a chosen length, idle gaps between them, tkeep full or ragged on
the last beat (packers, adapters and framers branch on all three)."""
from .engine import Params

NAME = "frames"
SUMMARY = "AXI-stream frames: lengths, gaps, tkeep on the last beat"


def applies(ifc) -> bool:
    return any(s.last for s in ifc.sources)


def variants(ifc) -> list:
    return [Params(cycles=500, frame=1), Params(cycles=500, frame=3, gap=4, keep="random"),
            Params(cycles=800, frame=16, ready="p50"), Params(cycles=800, frame=0, gap=2, keep="random", ready="burst"),
            Params(cycles=1500, frame=64, valid="p50")]
