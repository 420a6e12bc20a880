"""Interfaces a verification engineer would drive, recognised from a top's ports (names and directions only).

A stream is a `<prefix>valid` port: an input valid makes the testbench its source (it drives valid and the
fields sharing the prefix, holding them until `<prefix>ready` accepts), an output valid with an input ready
makes it the sink (it drives ready). A valid N bits wide is N lanes (axis_switch's S_COUNT ports), each field
split into N equal slices. An AXI-lite slave port is a base with input awvalid, wvalid and arvalid. Inputs in
no stream (configuration like rate_num) are `others`.
"""
from __future__ import annotations

from dataclasses import dataclass, field


@dataclass
class Stream:
    prefix: str
    role: str                  # source (we drive valid + fields) | sink (we drive ready)
    valid: str
    ready: str | None          # None: every valid beat transfers
    lanes: int
    fields: list = field(default_factory=list)     # [(name, width)] inputs we drive as a source

    def named(self, suffix: str):
        """The field (name, width) called <prefix><suffix> (s_axis_t + last), or None."""
        for n, w in self.fields:
            if n.lower() == (self.prefix + suffix).lower():
                return n, w
        return None

    @property
    def last(self):
        return self.named("last")

    @property
    def keep(self):
        return self.named("keep") or self.named("strb")


@dataclass
class Interfaces:
    clock: str | None
    reset: str | None
    reset_low: bool
    streams: list = field(default_factory=list)
    axil: list = field(default_factory=list)        # bases, e.g. "s_axil_"
    others: list = field(default_factory=list)      # [(name, width)]
    dictionary: dict = field(default_factory=dict)  # constants.dictionary: literals the RTL compares inputs with

    @property
    def sources(self):
        return [s for s in self.streams if s.role == "source"]

    @property
    def sinks(self):
        return [s for s in self.streams if s.role == "sink"]

    def describe(self) -> str:
        parts = [f"{s.role} {s.prefix or '(no prefix)'}" + (f" x{s.lanes}" if s.lanes > 1 else "") for s in self.streams]
        parts += [f"axi-lite slave {b}" for b in self.axil]
        return ", ".join(parts) or "no handshake interface"


def recognise(ports, clock: str | None, reset: str | None, reset_low: bool = False, text: str = "") -> Interfaces:
    """The interfaces of a top with `ports`; `text` (the RTL) adds the dictionary of compared literals."""
    ins = {p.name: p for p in ports if p.direction == "input" and p.name not in (clock, reset)}
    ifc = Interfaces(clock, reset, reset_low)
    by_lower = {p.name.lower(): p for p in ports}
    for p in ports:
        low = p.name.lower()
        if not low.endswith("valid") or p.name in (clock, reset):
            continue
        prefix = p.name[:-5]
        r = by_lower.get(prefix.lower() + "ready")
        if p.direction == "input":
            ready = r.name if r is not None and r.direction == "output" else None
            ifc.streams.append(Stream(prefix, "source", p.name, ready, p.width))
        elif p.direction == "output" and r is not None and r.name in ins:
            ifc.streams.append(Stream(prefix, "sink", p.name, r.name, p.width))
    claimed = {s.valid for s in ifc.streams} | {s.ready for s in ifc.streams if s.ready}
    for name, p in ins.items():
        if name in claimed:
            continue
        # the longest source prefix owns a field: s_axil_awaddr is aw's, not w's
        owners = [s for s in ifc.sources if name.lower().startswith(s.prefix.lower())]
        if owners:
            max(owners, key=lambda s: len(s.prefix)).fields.append((name, p.width))
        else:
            ifc.others.append((name, p.width))
    src = {s.prefix.lower() for s in ifc.sources}
    for s in ifc.sources:
        low = s.prefix.lower()
        if low.endswith("aw"):
            base = low[:-2]
            if base + "w" in src and base + "ar" in src:
                ifc.axil.append(s.prefix[:-2])
    if text:
        from .constants import dictionary
        ifc.dictionary = dictionary(text, [(n, p.width) for n, p in ins.items()])
    return ifc
