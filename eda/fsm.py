"""FSM state and transition coverage: FSMs found by Yosys, measured in the coverage simulation.

    fsms = extract(sources, "fsm_seq")        # [FSM(name="state", states=[...], arcs=[...]), ...]
    coverage_run(sources, top, stimulus, fsms=fsms)   # adds fsm_state / fsm_arc points

Verilator's own FSM coverage is off (it crashes Verilator 5.48 on RTLLM asyn_fifo, see
eda/tools/verilator.py). Instead Yosys (`proc; flatten; opt -nodffe -nosdff; fsm_detect;
fsm_extract`, the front of `synth`'s fsm pass; registers named like states are forced in) names
the state registers, their state codes and
their transitions (the `transition:` lines of fsm_extract's log; arcs are the distinct
from -> to pairs, whatever the inputs). A monitor in the coverage harness samples each state
register at every rising edge of the DUT's clock (before the edge's updates, so consecutive samples
are one transition, a self-loop included) and prints the states and arcs it saw in a `final`
block; `points` turns that into Points. Yosys only detects registers that look like FSMs (used
only in comparisons and muxes, not driving ports directly): a design without one has no FSM points.
"""
import re
from dataclasses import dataclass, field

from . import sandbox
from .coverage_point import Point
from .hdl import safe_name
from .sources import is_header
from .tools import YOSYS

TAG = "RTLA_FSM"


@dataclass
class FSM:
    name: str                     # state register, relative to the DUT instance ("state", "u_ctl.state")
    module: str                   # module that declares it
    width: int
    states: list                  # binary codes, e.g. "010"
    arcs: list                    # (from code, to code)
    file: str = ""                # DUT file and line of the declaration (for reports)
    line: int = 0
    names: dict = field(default_factory=dict)     # code -> localparam name, when one matches

    def label(self, code: str) -> str:
        return self.names.get(code, f"{self.width}'b{code}")


# Registers named like states are FSMs even when fsm_detect's rules say no (RTLLM traffic_light's state
# "seems self-resetting"; Yosys 0.23 had no -ignore-self-reset): the fsm_encoding attribute forces them (on 0.70 too).
_NAMED = "w:*state* w:*State* w:*STATE* w:ST_* w:*_st w:cs w:ps w:*fsm*"
_EXTRACT = re.compile(r"Extracting FSM `\\?(\S+)' from module `\\?(\S+)'")
_TRANS = re.compile(r"transition:\s+\d+'([01]+)\s+\S+\s+->\s+\d+'([01]+)")
_CODE = re.compile(r"found state code:\s+\d+'([01]+)")


def parse_log(log: str) -> list:
    """FSMs from a fsm_extract log."""
    out = []
    for block in re.split(r"(?=Extracting FSM `)", log)[1:]:
        m = _EXTRACT.match(block)
        states = list(dict.fromkeys(_CODE.findall(block)))
        arcs = list(dict.fromkeys(_TRANS.findall(block)))
        if not m or not states or "$" in m.group(1):
            continue
        states = list(dict.fromkeys(states + [c for a in arcs for c in a]))
        out.append(FSM(m.group(1), m.group(2), len(states[0]), states, arcs))
    return out


def _declaration(sources: dict, name: str):
    """(file, line, localparam names by code) of the register `name` (its last path part)."""
    leaf = name.split(".")[-1]
    decl = re.compile(rf"\b(reg|logic)\b[^;]*\b{re.escape(leaf)}\b")
    for f, text in sources.items():
        for i, ln in enumerate(text.splitlines(), 1):
            if decl.search(ln.split("//")[0]):
                return f, i, text
    return "", 0, ""


def _names(text: str, width: int) -> dict:
    out, seen = {}, {}
    for n, w, base, v in re.findall(r"\b(\w+)\s*=\s*(\d+)\s*'\s*([bdhBDH])\s*([0-9a-fA-F_]+)", text):
        if int(w) != width:
            continue
        code = format(int(v.replace("_", ""), {"b": 2, "d": 10, "h": 16}[base.lower()]), f"0{width}b")
        seen[code] = seen.get(code, 0) + 1
        out[code] = n
    return {c: n for c, n in out.items() if seen[c] == 1}


def extract(sources: dict, top: str, timeout_s: float = 60) -> list:
    """The FSMs Yosys finds in the DUT (flattened from `top`); [] when it finds none or cannot read it."""
    with sandbox.Sandbox(prefix="rtla-fsm-") as sb:
        names = [sb.write(f"{i:03d}_{safe_name(n)}", t).name for i, (n, t) in enumerate(sources.items())
                 if not is_header(n, sources)]
        for n, t in sources.items():
            if is_header(n, sources):       # read where it is included, by its own name
                sb.write(safe_name(n), t)
        script = ("; ".join(f"read_verilog -sv {n}" for n in names)
                  + f"; hierarchy -top {top}; proc; flatten; opt_expr; opt_clean; opt -nodffe -nosdff; "
                  f"setattr -set fsm_encoding \"auto\" {_NAMED}; fsm_detect; "
                  "tee -q -o fsm.log fsm_extract")
        r = sandbox.run(YOSYS.commands_cmd(script), sb.path,
                        sandbox.Limits(wall_s=timeout_s, cpu_s=int(timeout_s) + 5, mem_mb=4096))
        log = (sb.path / "fsm.log").read_text(errors="replace") if (sb.path / "fsm.log").exists() else ""
    if not r.ok:
        return []
    fsms = parse_log(log)
    for m in fsms:
        m.file, m.line, text = _declaration(sources, m.name)
        m.names = _names(text, m.width)
    return fsms


def monitor(fsms: list, clock: str, inst: str = "tb.uut") -> str:
    """Verilog for the coverage harness: per FSM, the states and arcs seen at rising clock edges,
    printed once at the end (`TAG i s` and `TAG i s t`, indices into states; the last index is
    "not a state code")."""
    out = []
    for i, m in enumerate(fsms):
        n, p = len(m.states), f"rtla_fsm{i}"
        cases = " ".join(f"{m.width}'b{c}: {p}_cur = {k};" for k, c in enumerate(m.states))
        out += [f"  integer {p}_prev = -1, {p}_cur, {p}_a, {p}_b;",
                f"  reg {p}_seen [0:{n}];", f"  reg {p}_arc [0:{n}][0:{n}];",
                f"  initial for ({p}_a = 0; {p}_a <= {n}; {p}_a = {p}_a + 1) begin {p}_seen[{p}_a] = 0; "
                f"for ({p}_b = 0; {p}_b <= {n}; {p}_b = {p}_b + 1) {p}_arc[{p}_a][{p}_b] = 0; end",
                f"  always @(posedge {inst}.{clock}) begin",
                f"    case ({inst}.{m.name}) {cases} default: {p}_cur = {n}; endcase",
                f"    {p}_seen[{p}_cur] = 1;",
                f"    if ({p}_prev >= 0) {p}_arc[{p}_prev][{p}_cur] = 1;",
                f"    {p}_prev = {p}_cur;",
                "  end",
                f"  final for ({p}_a = 0; {p}_a <= {n}; {p}_a = {p}_a + 1) begin",
                f"    if ({p}_seen[{p}_a]) $display(\"{TAG} {i} %0d\", {p}_a);",
                f"    for ({p}_b = 0; {p}_b <= {n}; {p}_b = {p}_b + 1) if ({p}_arc[{p}_a][{p}_b]) "
                f"$display(\"{TAG} {i} %0d %0d\", {p}_a, {p}_b);",
                "  end"]
    return "\n".join(out) + "\n" if out else ""


def _point(m: FSM, typ: str, comment: str, count: int) -> Point:
    kv = {"f": m.file, "l": str(m.line), "t": typ, "page": f"v_{typ}/{m.module}", "o": comment,
          "h": "uut" + ("." + m.name.rsplit(".", 1)[0] if "." in m.name else "")}
    key = "\x01".join(f"{k}\x02{kv[k]}" for k in sorted(kv))
    return Point(m.file, m.line, typ, m.module, kv["h"], comment, count, 0, (m.line,), key)


def points(fsms: list, out: str) -> list:
    """fsm_state / fsm_arc Points (count 1 when seen, else 0) from a simulation's output."""
    seen = set()
    for line in out.splitlines():
        parts = line.split()
        if len(parts) in (3, 4) and parts[0] == TAG and all(x.isdigit() for x in parts[1:]):
            seen.add(tuple(int(x) for x in parts[1:]))
    pts = []
    for i, m in enumerate(fsms):
        idx = {c: k for k, c in enumerate(m.states)}
        for c in m.states:
            pts.append(_point(m, "fsm_state", f"{m.name}: {m.label(c)}", int((i, idx[c]) in seen)))
        for a, b in m.arcs:
            pts.append(_point(m, "fsm_arc", f"{m.name}: {m.label(a)}->{m.label(b)}", int((i, idx[a], idx[b]) in seen)))
    return pts
