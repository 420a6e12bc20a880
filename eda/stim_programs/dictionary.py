"""Values the RTL compares its inputs with (constants.dictionary): opcodes, commands, magic numbers that random
values almost never hit, drawn per slice among the literals the code tests, on every interface."""
from .engine import Params

NAME = "dictionary"
SUMMARY = "inputs set to the literals the RTL compares them with (opcodes, commands)"


def applies(ifc) -> bool:
    return bool(ifc.dictionary)


def variants(ifc) -> list:
    # requests the design does not answer (an opcode it does not decode) are withdrawn after a timeout
    return [Params(cycles=500, data="dict", others="fresh", timeout=16),
            Params(cycles=2000, data="dict", valid="p50", ready="p50", others="fresh", timeout=64),
            Params(cycles=500, data="dict", reset_at=100, others="held", timeout=16)]
