"""Targets of eda.reach and the Verilog wrapper that turns them into AIGER outputs.

A target is one open coverage point with the model outputs that stand for it:
  wit    outputs whose 1 means the point is hit now (a trace to one is a witness)
  prove  outputs whose "never 1" implies the point is never hit (any one proven is a waiver)
line/branch: the flag of the arm (eda.reach_rtlil), both lists. toggle bit b of S, 0->1: wit
`~prev & S[b]`, prove `S[b]` ("never 1": no edge either way; "never 0" likewise) -- a proof over
consecutive model steps alone would miss a change the simulation sees between a clock edge and the next
input change, a constant bit has none. fsm_state: `st == code` both; fsm_arc: `prev == a && st == b`
(the coverage monitor samples the state at rising edges, one model step each).

The wrapper `rtla_reach` has inputs p0, p1, ... (the DUT's inputs, in port order) and one output bit per
condition; it forces the reset in the first INIT frames (normal mode 1; clk2fflogic mode 3, with the clock
0, 1, 0 so that an edge falls inside the reset) and masks every output there, so frame INIT is the first
free cycle after reset. Monitor registers run on `$global_clock` (one model step)."""
import re
from dataclasses import dataclass, field

from .hdl import IDENT
from .reach_map import general_term


@dataclass
class Target:
    key: str
    kind: str                       # flag | toggle | fsm_state | fsm_arc
    desc: str
    wit: list = field(default_factory=list)       # condition indices
    prove: list = field(default_factory=list)
    reason: str = ""                # set when the point has no target (it stays undecided)


def vname(name: str) -> str:
    """A Verilog identifier for an RTLIL/port name (escaped when needed)."""
    n = name.lstrip("\\")
    return n if re.fullmatch(IDENT, n) else f"\\{n} "


# a signal in a generate scope keeps the scope's index (`m_ifaces[1].drop_reg[0]`), as Yosys names the wire
_TOGGLE = re.compile(rf"^((?:{IDENT}(?:\[\d+\])?\.)*{IDENT})((?:\[\d+\])*):(0->1|1->0)$")


def toggle_of(comment: str):
    """'sig[3]:0->1' -> ('sig', 3, 'up'); an array element 'mem[2][5]:1->0' -> ('mem[2]', 5, 'down') (Yosys
    names the element's wire so); None for anything else."""
    m = _TOGGLE.match(comment)
    if not m:
        return None
    idx = [int(x) for x in re.findall(r"\d+", m.group(2))]
    d = "up" if m.group(3) == "0->1" else "down"
    if len(idx) > 2:
        return None
    if len(idx) == 2:
        return f"{m.group(1)}[{idx[0]}]", idx[1], d
    return m.group(1), idx[0] if idx else 0, d


_CONST = r"(\d+)'s?([hdb])([0-9a-fA-F_]+)"
_TERM = re.compile(rf"^(?:((?:{IDENT}(?:\[\d+\])?\.)*{IDENT})(?:\[(\d+)\])?|{_CONST}|\(({IDENT}) (==|!=|<|>|<=|>=) {_CONST}\))==([01])$")


def _const(width, base, digits) -> int:
    return int(digits.replace("_", ""), {"h": 16, "d": 10, "b": 2}[base])


def expr_terms(comment: str):
    """'(a==1 && b[2]==0) => 1' -> [('a', 0, 1, None), ('b', 2, 0, None)]; '(x == 32'sh3b)==1' -> ('x', None, 1,
    ('==', 59)) (also != < > <= >=, compared unsigned: a signal declared signed is refused); a constant term that cannot hold -> None in the list ([None] means impossible); None when a term is
    anything else (another operator)."""
    m = re.match(r"^\((.*)\) => [01]$", comment.strip())
    if not m:
        return None
    out = []
    for t in m.group(1).split(" && "):
        tm = _TERM.match(t.strip())
        if not tm:
            g = general_term(t)            # an operator inside: eda.reach_map
            if g is None:
                return None
            out.append(g)
            continue
        val = int(tm.group(11))
        if tm.group(1):
            out.append((tm.group(1), int(tm.group(2) or 0), val, None))
        elif tm.group(6):
            out.append((tm.group(6), None, val, (tm.group(7), _const(*tm.group(8, 9, 10)))))
        elif (_const(*tm.group(3, 4, 5)) != 0) != bool(val):
            out.append(None)
    return out


def blocking_targets(text: str) -> set:
    """Names assigned with `=` inside procedural code (a term reading one may see a process-internal value,
    not the wire's): statements that are continuous assigns or declarations with an initialiser (also
    across lines: `assign a = x,\n b = y;`) are left out."""
    from .hdl import strip_comments
    out = set()
    for stmt in strip_comments(text).split(";"):
        st = re.sub(r"^[ \t]*`.*$", "", stmt, flags=re.M).strip()        # compiler directives before it
        # declarations with an initialiser (`reg x = 1'b0;`: the value at time 0, not a procedural assignment)
        # (a module header with its `#(parameter A = 1, ...)` list is one statement up to its `);`)
        # (also after `begin`/`else`/a generate `if (...)`: `end else begin assign a = 1'b1;` is continuous)
        for m in re.finditer(rf"({IDENT})\s*(?:\[[^\]]*\]\s*)*=(?![=])", st):
            if re.search(r"\b(assign|wire|reg|logic|bit|integer|int|localparam|parameter|input|output|genvar|module)\b",
                         st[:m.start(0)]):
                continue
            if st[max(0, m.start(0) - 1):m.start(0)] not in ("<", ">", "!", "=") and st[m.end(0) - 2:m.end(0) - 1] not in ("<", ">", "!"):
                out.add(m.group(1))
    return out - set(re.findall(rf"\b(?:parameter|localparam)\b(?:\s+(?:integer|signed|\[[^\]]*\]))*\s+({IDENT})", text))


def init_frames(reset, fflogic: bool) -> int:
    return 3 if fflogic else 1


class Conditions:
    """The wrapper's output bits: Verilog expressions over the DUT's signals, and monitor registers."""

    def __init__(self):
        self.exprs, self.regs, self._prev = [], [], {}

    def add(self, expr: str) -> int:
        self.exprs.append(expr)
        return len(self.exprs) - 1

    def prev(self, sig: str, width: int) -> str:
        """A register holding `sig` one model step ago."""
        if sig not in self._prev:
            r = f"rtla_prev{len(self._prev)}"
            self._prev[sig] = r
            self.regs.append((r, width, sig))
        return self._prev[sig]


def wrapper(top: str, inputs: list, outputs: list, exposed: dict, conds: Conditions, clock, reset,
            active: int, fflogic: bool) -> str:
    """The `rtla_reach` module around `top` (inputs/outputs: [(name, width)] of its ports; exposed:
    {port name: (wire name in the wrapper, width)} of the internal signals `expose` made ports)."""
    n = init_frames(reset, fflogic)
    ins = ", ".join(f"input [{w - 1}:0] p{i}" for i, (_, w) in enumerate(inputs))
    k = max(1, len(conds.exprs))
    L = [f"module rtla_reach({ins}{', ' if ins else ''}output [{k - 1}:0] rtla_bad);",
         "  reg [1:0] rtla_ph = 2'd0;", f"  wire rtla_init = rtla_ph < 2'd{n};",
         "  always @($global_clock) if (rtla_init) rtla_ph <= rtla_ph + 2'd1;"]
    conns = []
    for i, (nm, w) in enumerate(inputs):
        sig = f"p{i}"
        if nm == reset:
            sig = f"(rtla_init ? 1'b{active} : p{i})"
        elif fflogic and nm == clock:
            sig = f"(rtla_init ? (rtla_ph == 2'd1) : p{i})"
        L.append(f"  wire [{w - 1}:0] {vname(nm)} = {sig};")     # what the DUT sees (reset forced)
        conns.append(f".{vname(nm)}({vname(nm)})")
    for nm, w in outputs:
        L.append(f"  wire [{w - 1}:0] {vname(nm)};")
        conns.append(f".{vname(nm)}({vname(nm)})")
    for port, (wire, w) in exposed.items():
        L.append(f"  wire [{w - 1}:0] {wire};")
        conns.append(f".{vname(port)}({wire})")
    L.append(f"  {vname(top)} rtla_dut({', '.join(conns)});")
    for r, w, sig in conds.regs:
        L.append(f"  reg [{w - 1}:0] {r} = 0;")
        L.append(f"  always @($global_clock) {r} <= {sig};")
    bits = [f"({e})" for e in conds.exprs] or ["1'b0"]
    L.append(f"  wire [{k - 1}:0] rtla_c = {{{', '.join(reversed(bits))}}};")
    L.append(f"  assign rtla_bad = rtla_c & ~{{{k}{{rtla_init}}}};")
    L.append("endmodule")
    return "\n".join(x for x in L if x) + "\n"
