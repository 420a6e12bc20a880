"""The lowest layer of the equivalence package: one elaborated side (`_Design`), the
exception a check stops with (`_Fail`), source files into a folder, tool limits from the
deadline, and the Verilog spelling of names and literals."""
import re
import time
from dataclasses import dataclass
from pathlib import Path

from ..hdl import IDENT, safe_name
from ..sources import is_header
from ..sandbox import Limits


@dataclass
class _Design:
    """One side of the comparison after elaboration."""
    tag: str                     # gold | gate
    il: Path
    ports: dict                  # name -> (direction, width)
    state: bool                  # has registers, latches or memories
    clocks: set                  # {(port, polarity)} of plain flip-flops
    complex_clocking: bool       # latches, memories, derived or several clocks
    problems: list               # logic loops, conflicting drivers (from `check`)


class _Fail(Exception):
    def __init__(self, status, message, data=None, log=""):
        super().__init__(message)
        self.status, self.message, self.data, self.log = status, message, data or {}, log


def _write(folder: Path, sources: dict) -> list[str]:
    folder.mkdir(parents=True, exist_ok=True)
    hdl = []
    for name, text in sources.items():
        n = safe_name(name)
        data = text.encode() if isinstance(text, str) else text
        if n.endswith((".v", ".sv")) and data and not data.endswith(b"\n"):
            data += b"\n"              # a last line without newline must not glue onto the next file
        (folder / n).write_bytes(data)
        if n.endswith((".v", ".sv")) and not is_header(name, sources):
            hdl.append(n)
    return hdl


def _limits(deadline: float, share: float = 1.0) -> Limits:
    left = max(1.0, (deadline - time.monotonic()) * share)
    return Limits(wall_s=left, cpu_s=int(left) + 5, mem_mb=4096, out_mb=64)


def _who(tag: str) -> str:
    return "reference" if tag == "gold" else "candidate"


_IDENT = re.compile(IDENT)


def _lit(width: int, value: int | None) -> str:
    return f"{width}'b{'x' * width}" if value is None else f"{width}'h{value:x}"


def _port_ref(name: str) -> str:
    return name if _IDENT.fullmatch(name) else f"\\{name} "


def _bits_to_int(bits: str) -> int | None:
    return int(bits, 2) if bits and set(bits) <= {"0", "1"} else None
