"""One option's Verilog: a cycle loop that drives every recognised interface the way its parameters say.

Every stream source holds valid and its fields until the beat transfers (valid && ready at a rising edge,
recorded by a flag the testbench sets there), then draws the next beat: valid by `valid` (a pattern), fields
by `data`, tlast ending frames of `frame` beats (0: 1-16 at random) followed by `gap` idle cycles, tkeep/wstrb
full or random on the last beat. Sinks drive ready by `ready`, held low for the first `hold_ready` cycles (a
FIFO fills, then drains). `reset_at` pulses reset for two cycles in the middle of the traffic. Values come from
$urandom (seeded by +seed=N), so one option run with several seeds gives different traffic of the same shape.
"""
from __future__ import annotations

from dataclasses import asdict, dataclass

PATTERNS = ("always", "never", "p50", "p10", "burst")
DATA = ("random", "zeros", "ones", "walking", "alt", "dict")


@dataclass(frozen=True)
class Params:
    cycles: int = 500
    valid: str = "always"       # source valid pattern (PATTERNS)
    ready: str = "always"       # sink ready pattern
    hold_ready: int = 0         # sinks not ready for the first N cycles
    frame: int = 0              # beats per frame (with tlast): 0 random 1-16
    gap: int = 0                # idle cycles after a frame's last beat
    keep: str = "full"          # full | random (last beat's tkeep / every wstrb)
    data: str = "random"        # DATA: stream fields and the other inputs (dict: the RTL's compared literals)
    addr: str = "random"        # random | small (fields named *addr: a few word addresses, so reads hit writes)
    phases: bool = False        # axi-lite: writes only in the first half, reads only in the second
    reset_at: int = -1          # cycle of a 2-cycle reset pulse (-1: none)
    others: str = "held"        # inputs outside the streams: held (drawn once) | fresh (every cycle)
    timeout: int = 0            # a source withdraws a beat not accepted in N cycles (0: never, as AXI requires;
                                # PCPI-like requests with no answer for some values need it)

    def label(self) -> str:
        """The parameters that differ from the defaults, as `k=v` words."""
        d, base = asdict(self), asdict(Params())
        return " ".join(f"{k}={v}" for k, v in d.items() if v != base[k] or k == "cycles")


def rand(width: int) -> str:
    n = (width + 31) // 32
    return "$urandom" if n == 1 else "{" + ", ".join(["$urandom"] * n) + "}"


def pattern(p: str) -> str:
    return {"always": "1'b1", "never": "1'b0", "p50": "($urandom % 100 < 50)", "p10": "($urandom % 100 < 10)",
            "burst": "((rtla_i / 8) % 2 == 0)"}[p]


def value(width: int, style: str) -> str:
    ones = f"{{{width}{{1'b1}}}}"
    if style == "zeros":
        return f"{width}'d0"
    if style == "ones":
        return ones
    if style == "walking":
        return "rtla_i[0]" if width == 1 else f"({width}'d1 << (rtla_i % {width}))"
    if style == "alt":
        n = (width + 1) // 2
        return f"((rtla_i % 2) ? {{{n}{{2'b01}}}} : {{{n}{{2'b10}}}})"
    return rand(width)


def assign(ifc, name: str, lv: str, width: int, style: str) -> str:
    """`lv = value;` in `style`; dict: random, then each slice the RTL compares with literals set to one of
    them (3 times in 4, independently per slice)."""
    if style != "dict":
        return f"{lv} = {value(width, style)};"
    out = f"{lv} = {rand(width)};"
    if lv != name:
        return out
    for lo, w, vals in ifc.dictionary.get(name, ()):
        pick = " : ".join(f"(rtla_r == {i}) ? {w}'d{v}" for i, v in enumerate(vals[:-1]))
        pick = f"{pick} : {w}'d{vals[-1]}" if pick else f"{w}'d{vals[-1]}"
        out += (f" rtla_r = $urandom % {4 * len(vals)}; if (rtla_r < {3 * len(vals)}) begin rtla_r = rtla_r % {len(vals)}; "
                f"{name}[{lo + w - 1}:{lo}] = {pick}; end")
    return out


def _lane(name: str, width: int, lanes: int, k: int):
    """(lvalue, width) of lane k of a field; a field that does not split evenly is lane 0's whole."""
    if lanes > 1 and width % lanes == 0:
        w = width // lanes
        return f"{name}[{k * w + w - 1}:{k * w}]", w
    return (name, width) if k == 0 else (None, 0)


def render(ifc, p: Params, tag: str) -> list:
    """Statements of one option (inside the testbench's case arm); `tag` names its loop counters."""
    out = []
    on, off = ("1'b0", "1'b1") if ifc.reset_low else ("1'b1", "1'b0")
    step = f"@(negedge {ifc.clock});" if ifc.clock else "#10;"
    for name, w in ifc.others:
        out.append(assign(ifc, name, name, w, p.data))
    first = f"{p.frame}" if p.frame > 0 else "1 + $urandom % 16"
    for j, s in enumerate(ifc.streams):
        if s.role == "source":
            out += [f"rtla_b{j}_{k} = 0; rtla_g{j}_{k} = 0; rtla_n{j}_{k} = {first};" for k in range(s.lanes)]
    out += [f"for (rtla_i = 0; rtla_i < {int(p.cycles)}; rtla_i = rtla_i + 1) begin", f"  {step}"]
    if ifc.reset and p.reset_at >= 0:
        out.append(f"  if (rtla_i == {p.reset_at}) {ifc.reset} = {on}; else if (rtla_i == {p.reset_at + 2}) {ifc.reset} = {off};")
    if p.others == "fresh":
        out += ["  " + assign(ifc, name, name, w, p.data) for name, w in ifc.others]
    for j, s in enumerate(ifc.streams):
        for k in range(s.lanes):
            v = f"{s.valid}[{k}]" if s.lanes > 1 else s.valid
            if s.role == "sink":
                r = f"{s.ready}[{k}]" if s.lanes > 1 else s.ready
                ready = pattern(p.ready)
                out.append(f"  {r} = " + (f"(rtla_i < {p.hold_ready}) ? 1'b0 : {ready};" if p.hold_ready else f"{ready};"))
                continue
            out += _source(ifc, s, j, k, v, p)
    out.append("end")
    return out


def _source(ifc, s, j, k, v, p: Params) -> list:
    beat, length, gap, fire = f"rtla_b{j}_{k}", f"rtla_n{j}_{k}", f"rtla_g{j}_{k}", f"rtla_f{j}[{k}]"
    valid = pattern(p.valid)
    if p.phases and any(s.prefix == b + "ar" for b in ifc.axil):
        valid = f"(rtla_i >= {p.cycles // 2}) && {valid}"
    elif p.phases and any(s.prefix in (b + "aw", b + "w") for b in ifc.axil):
        valid = f"(rtla_i < {p.cycles // 2}) && {valid}"
    body = []
    last, keep = s.last, s.keep
    for name, w in s.fields:
        lv, lw = _lane(name, w, s.lanes, k)
        if lv is None or (last and name == last[0]) or (keep and name == keep[0]):
            continue
        if name.lower().endswith("addr") and p.addr == "small":
            body.append(f"{lv} = ($urandom % 4) << 2;")
        else:
            body.append(assign(ifc, name, lv, lw, p.data))
    if last:
        lv, _ = _lane(*last, s.lanes, k)
        if lv:
            body.append(f"{lv} = ({beat} + 1 >= {length});")
    if keep:
        lv, lw = _lane(*keep, s.lanes, k)
        if lv:
            full = f"{{{lw}{{1'b1}}}}"
            if p.keep == "random":
                body.append(f"{lv} = ({beat} + 1 >= {length} || {int(last is None)}) ? ({full} >> ($urandom % {lw})) : {full};")
            else:
                body.append(f"{lv} = {full};")
    n_new = f"{length} = {p.frame};" if p.frame > 0 else f"{length} = 1 + $urandom % 16;"
    wait = f"rtla_w{j}_{k}"
    timeout = ([f"  if ({v} && !{fire}) {wait} = {wait} + 1; else {wait} = 0;",
                f"  if ({wait} > {p.timeout}) begin {v} = 1'b0; {wait} = 0; end"] if p.timeout else [])
    return timeout + [f"  if (!{v} || {fire}) begin",
            f"    if ({v} && {fire}) begin {beat} = {beat} + 1; if ({beat} >= {length}) begin {beat} = 0; {gap} = {p.gap}; {n_new} end end",
            f"    if ({gap} > 0) begin {gap} = {gap} - 1; {v} = 1'b0; end",
            f"    else if ({valid}) begin {v} = 1'b1; " + " ".join(body) + " end",
            f"    else {v} = 1'b0;",
            "  end"]


def testbench(ifc, ports, top: str, options: list, period_ns: float = 10.0, reset_cycles: int = 3) -> str:
    """One module for all `options` (Params): +opt=K runs option K, +seed=N seeds $urandom; one build serves
    every option and seed."""
    on, off = ("1'b0", "1'b1") if ifc.reset_low else ("1'b1", "1'b0")
    lines = ["module tb;"]
    for q in ports:
        rng = f"[{q.width - 1}:0] " if q.width > 1 else ""
        lines.append(f"  {'reg' if q.direction == 'input' else 'wire'} {rng}{q.name}{' = 0' if q.direction == 'input' else ''};")
    lines.append(f"  {top} uut({', '.join(f'.{q.name}({q.name})' for q in ports)});")
    if ifc.clock:
        lines.append(f"  always #{period_ns / 2:g} {ifc.clock} = ~{ifc.clock};")
    lines.append("  integer rtla_seed, rtla_opt, rtla_r;")
    lines.append("  reg [31:0] rtla_i;")
    for j, s in enumerate(ifc.streams):
        if s.role != "source":
            continue
        fire = f"{s.valid} & {s.ready}" if s.ready else s.valid
        lines.append(f"  reg [{s.lanes - 1}:0] rtla_f{j} = 0;")
        if ifc.clock:
            lines.append(f"  always @(posedge {ifc.clock}) rtla_f{j} <= {fire};")
        else:
            lines.append(f"  always @({s.valid} or {s.ready or s.valid}) rtla_f{j} = {fire};")
        for k in range(s.lanes):
            lines.append(f"  integer rtla_b{j}_{k} = 0, rtla_n{j}_{k} = 1, rtla_g{j}_{k} = 0, rtla_w{j}_{k} = 0;")
    lines += ["  initial begin",
              "    if (!$value$plusargs(\"seed=%d\", rtla_seed)) rtla_seed = 1;",
              "    if (!$value$plusargs(\"opt=%d\", rtla_opt)) rtla_opt = 0;",
              "    rtla_r = $urandom(rtla_seed);"]
    step = f"@(negedge {ifc.clock});" if ifc.clock else "#10;"
    if ifc.reset:
        lines += [f"    {ifc.reset} = {on};"] + [f"    {step}"] * reset_cycles + [f"    {ifc.reset} = {off};"]
    lines.append("    case (rtla_opt)")
    for i, p in enumerate(options):
        lines.append(f"      {i}: begin")
        lines += ["        " + x for x in render(ifc, p, str(i))]
        lines.append("      end")
    lines += ["      default: ;", "    endcase", f"    {step}", "    $finish;", "  end", "endmodule", ""]
    return "\n".join(lines)
