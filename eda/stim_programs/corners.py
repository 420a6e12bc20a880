"""Corner values on every data field and other input: all zeros, all ones, a walking one, alternating bits
(comparators, overflow and sign paths), at full throughput."""
from .engine import Params

NAME = "corners"
SUMMARY = "corner values: all zeros, all ones, walking one, alternating bits"


def applies(ifc) -> bool:
    return True


def variants(ifc) -> list:
    return [Params(cycles=200, data=d, others="fresh") for d in ("zeros", "ones", "walking", "alt")]
