"""Ports of a top module, read from RTL by Yosys (no hand tables).

`parse_ports` caches per content hash in memory, so loading the 50 RTLLM tasks
runs Yosys once per distinct reference.
"""
import hashlib
import json
import re
from dataclasses import asdict, dataclass

from . import sandbox
from .hdl import safe_name
from .sources import is_header
from .tools import YOSYS

DIRECTIONS = ("input", "output", "inout")


@dataclass(frozen=True)
class Port:
    name: str
    direction: str      # input | output | inout
    width: int
    signed: bool = False

    def to_dict(self) -> dict:
        return asdict(self)


class PortError(ValueError):
    """Yosys could not read the sources or find the top; the message holds its error."""


_CACHE: dict[str, tuple[list[Port], str | None]] = {}


def _key(sources: dict, top: str) -> str:
    h = hashlib.sha256(top.encode())
    for name in sorted(sources):
        h.update(b"\0" + name.encode() + b"\0" + sources[name].encode())
    return h.hexdigest()


def parse_ports(sources: dict[str, str], top: str, timeout_s: float = 60) -> list[Port]:
    """Ports of module `top` (declaration order, default parameters) in `sources` (filename -> text)."""
    return parse_ports_ex(sources, top, timeout_s)[0]


def parse_ports_ex(sources: dict[str, str], top: str, timeout_s: float = 60) -> tuple[list[Port], str | None]:
    """(ports, note): note is None when Yosys elaborated the design, else why only the
    interface could be read (e.g. RTL Yosys cannot synthesize; ports come from `read_verilog -lib`)."""
    if not sources:
        raise PortError(f"no sources given to find the ports of '{top}'")
    key = _key(sources, top)
    if key in _CACHE:
        ports, note = _CACHE[key]
        return list(ports), note
    try:
        ports, note = _yosys_ports(sources, top, lib=False, timeout_s=timeout_s), None
    except PortError as full_err:
        # interface-only read: works for RTL that elaborates badly (non-synthesizable event lists)
        try:
            ports = _yosys_ports(sources, top, lib=True, timeout_s=timeout_s)
        except PortError:
            raise full_err from None
        note = f"yosys cannot elaborate it ({str(full_err).split(': ', 1)[-1]}); ports read from the interface only"
    _CACHE[key] = (ports, note)
    return list(ports), note


def _yosys_ports(sources: dict, top: str, lib: bool, timeout_s: float) -> list[Port]:
    with sandbox.Sandbox(prefix="rtla-ports-") as sb:
        names = []
        for i, (name, text) in enumerate(sources.items()):
            if is_header(name, sources):     # read where it is included, by its own name
                sb.write(safe_name(name), text)
                continue
            # numbered names: two sources may share a basename (different folders)
            names.append(sb.write(f"{i:03d}_{safe_name(name)}", text).name)
        flag = "-sv -lib" if lib else "-sv"
        reads = "; ".join(f"read_verilog {flag} {n}" for n in names)
        script = f"{reads}; hierarchy -top {top}; {'' if lib else 'proc; '}write_json ports.json"
        r = sandbox.run(YOSYS.commands_cmd(script), sb.path,
                        sandbox.Limits(wall_s=timeout_s, cpu_s=int(timeout_s) + 5, mem_mb=4096))
        out = sb.path / "ports.json"
        if not r.ok or not out.exists():
            err = _first_error(r.out) or f"yosys exit {r.rc}"
            err = re.sub(r"\b\d{3}_", "", err)        # drop our numbering from file names
            raise PortError(f"cannot read ports of '{top}' from {', '.join(sources)}: {err}")
        data = json.loads(out.read_text())
    mod = data.get("modules", {}).get(top)
    if mod is None:
        raise PortError(f"yosys output has no module '{top}' (found {', '.join(data.get('modules', {}))})")
    return [Port(n, p["direction"], len(p["bits"]), bool(p.get("signed", 0)))
            for n, p in mod.get("ports", {}).items()]


def _first_error(out: str) -> str:
    for line in out.splitlines():
        if "ERROR" in line or "error" in line.lower():
            return line.strip()[:300]
    return out.strip().splitlines()[-1][:300] if out.strip() else ""
