"""AXI-lite transactions on a slave port: writes then reads of a few word addresses (so reads return what was
written), with full or random byte strobes and the response channels stalled or not."""
from .engine import Params

NAME = "axil"
SUMMARY = "AXI-lite writes then reads to a few addresses, strobes, response back-pressure"


def applies(ifc) -> bool:
    return bool(ifc.axil)


def variants(ifc) -> list:
    return [Params(cycles=400, addr="small", phases=True),
            Params(cycles=400, addr="small", phases=True, keep="random", ready="p50", valid="p50"),
            Params(cycles=600, addr="small", keep="random", valid="p50", ready="burst")]
