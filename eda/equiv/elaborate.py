"""Strategy `elaborate`: each design through Yosys on its own (`proc; flatten; memory`, top
renamed eqgold/eqgate, saved as RTLIL), or, for a design Yosys cannot read, its ports only
(compared by simulation); then the interface and structural checks that stop a comparison."""
import json
import re
from pathlib import Path

from ..hdl import strip_comments
from ..scripts import render
from ..synth import MEM_ABITS
from ..sandbox import run
from ..tools import YOSYS
from .base import _Design, _Fail, _limits, _who, _write
from .context import EquivContext
from .interface import _port_diff

FF_TYPES = {"$dff", "$dffe", "$adff", "$adffe", "$sdff", "$sdffe", "$sdffce", "$dffsr", "$dffsre",
            "$aldff", "$aldffe"}
OTHER_STATE = {"$dlatch", "$adlatch", "$dlatchsr", "$ff", "$mem", "$mem_v2", "$memwr", "$memwr_v2",
               "$memrd", "$memrd_v2", "$sr"}


def _elaborate(sources: dict, top: str, tag: str, root: Path, deadline: float) -> _Design:
    folder = root / tag
    files = _write(folder, sources)
    if not files:
        raise _Fail("error", f"{_who(tag)}: no .v/.sv source files")
    reads = "\n".join(f"read_verilog -sv {f}" for f in files)
    (folder / "prep.ys").write_text(render("equiv_prep.ys", reads=reads, top=top, tag=tag, mem_abits=MEM_ABITS))
    r = run(YOSYS.script_cmd("prep.ys"), folder, _limits(deadline, 0.5))
    who = _who(tag)
    if r.timed_out:
        raise _Fail("unknown(timeout)", f"{who}: yosys elaboration took longer than the time limit", log=r.out[-2000:])
    js = root / f"{tag}.json"
    if not r.ok or not js.exists():
        err = next((ln.strip() for ln in r.out.splitlines() if "ERROR" in ln), r.out.strip()[-300:])
        if r.limit == "memory":
            err = "yosys ran out of memory"
        elif "Assertion failed: selection is not empty" in r.out:
            err = f"a memory of {1 << MEM_ABITS} words or more (too large for a formal model)"
        raise _Fail("error", f"{who} does not elaborate: {err}", log=r.out[-2000:])
    mod = json.loads(js.read_text())["modules"].get(f"eq{tag}", {})
    ports = {n: (p["direction"], len(p["bits"])) for n, p in mod.get("ports", {}).items()}
    state, clocks, complex_ = _state(mod)
    check = (folder / "check.txt").read_text(errors="replace") if (folder / "check.txt").exists() else ""
    problems = sorted({m.strip() for m in re.findall(r"(found logic loop[^\n]*|multiple conflicting drivers[^\n]*)", check)})
    return _Design(tag, root / f"{tag}.il", ports, state, clocks, complex_, problems)


def _state(mod: dict) -> tuple[bool, set, bool]:
    """(has state, {(clock port, posedge)} of plain flip-flops, complex clocking) of a Yosys JSON module."""
    bit_port = {b: n for n, p in mod.get("ports", {}).items() if p["direction"] == "input"
                for b in p["bits"] if isinstance(b, int)}
    clocks, state, complex_ = set(), False, False
    for cell in mod.get("cells", {}).values():
        t = cell["type"]
        if t in FF_TYPES:
            state = True
            clk = cell["connections"].get("CLK", [None])[0]
            pol = str(cell["parameters"].get("CLK_POLARITY", "1")).lstrip("0") or "0"
            if clk not in bit_port:
                complex_ = True               # clock made inside the design
            else:
                clocks.add((bit_port[clk], pol == "1"))
        elif t in OTHER_STATE:
            state = complex_ = True
    return state, clocks, complex_


def _sim_only(sources, top, tag, root, why, clock) -> _Design:
    """A design Yosys cannot elaborate: ports from the interface only, compared by simulation."""
    from ..ports import PortError, parse_ports_ex
    try:
        ports = {p.name: (p.direction, p.width) for p in parse_ports_ex(sources, top)[0]}
    except PortError:
        raise _Fail("error", why) from None
    seq = clock is not None or bool(re.search(r"\b(posedge|negedge)\b", "\n".join(
        strip_comments(t) for t in sources.values() if isinstance(t, str))))
    return _Design(tag, None, ports, seq, set(), True, [why])


def elaborate(ctx: EquivContext):
    """Both designs elaborated (the candidate may fall back to simulation only when the
    reference did too); raises _Fail for an interface difference, inout ports or a
    candidate with a logic loop / conflicting drivers."""
    try:
        ctx.gold = _elaborate(ctx.ref, ctx.ref_top, "gold", ctx.root, ctx.deadline)
    except _Fail as f:
        if f.status != "error":
            raise
        ctx.gold = _sim_only(ctx.ref, ctx.ref_top, "gold", ctx.root, f.message, ctx.clock)  # e.g. float_multi's event list
    try:
        ctx.gate = _elaborate(ctx.cand, ctx.top, "gate", ctx.root, ctx.deadline)
    except _Fail as f:
        if f.status != "error" or ctx.gold.il is not None:
            raise
        ctx.gate = _sim_only(ctx.cand, ctx.top, "gate", ctx.root, f.message, ctx.clock)
    gold, gate = ctx.gold, ctx.gate
    diff = _port_diff(gate.ports, gold.ports)
    if diff:
        raise _Fail("fail", f"interface differs from the reference: {'; '.join(diff)}",
                    {"verdict": "interface mismatch", "differences": diff})
    if any(d == "inout" for d, w in gold.ports.values()):
        raise _Fail("error", "inout ports are not supported by the equivalence check")
    if gold.problems and gold.il is not None:
        # the reference itself has a loop or conflicting drivers as Yosys reads it (e.g. a clock generator
        # whose delays Yosys drops: `#5 clk = ~clk`): no formal verdict means anything, so both designs are
        # compared by simulation, as designs Yosys cannot read (an unproven verdict at best)
        why = f"reference: {gold.problems[0]}: no formal check; compared by simulation"
        ctx.gold, ctx.gate = (_Design(d.tag, None, d.ports, d.state, set(), True, [why]) for d in (gold, gate))
        return None
    if gate.problems and gate.il is not None:
        raise _Fail("counterexample", f"candidate: {gate.problems[0]} (a combinational loop or "
                    "conflicting drivers make a formal proof meaningless)", {"verdict": "counterexample",
                                                                           "method": "structural",
                                                                           "problems": gate.problems})
    return None
