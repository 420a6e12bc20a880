"""What resynth and resynth_edge share: the AIG a module's flip-flops and logic export to (Yosys, in the
sandbox), its step function, and the pieces of the rewritten text (a case over the input vector, the module's
frame). A module of its own so that neither kind imports the other."""
from __future__ import annotations

import tempfile
from pathlib import Path

from .base import TransformError
from .datapath.ir import postorder
from .recognise import _declares_port

MAX_IN_BITS = 6        # data input bits besides clock and reset (every vector is applied)
MAX_ANDS = 20000

def _aag(text: str):
    """(inputs, latches [(lit, next)], outputs, ands {lhs: (a, b)}) of an ASCII AIGER file."""
    lines = text.splitlines()
    _, m, i, l_, o, a = lines[0].split()[:6]
    i, l_, o, a = int(i), int(l_), int(o), int(a)
    ins = [int(x) for x in lines[1:1 + i]]
    lat = [tuple(int(v) for v in x.split()[:2]) for x in lines[1 + i:1 + i + l_]]
    outs = [int(x) for x in lines[1 + i + l_:1 + i + l_ + o]]
    ands = {}
    for x in lines[1 + i + l_ + o:1 + i + l_ + o + a]:
        lhs, r0, r1 = (int(v) for v in x.split())
        ands[lhs >> 1] = (r0, r1)
    return ins, lat, outs, ands


def _order(ands: dict) -> list:
    """AND variables in an order where each comes after its operands."""
    return postorder(list(ands), lambda v: [r >> 1 for r in ands[v] if (r >> 1) in ands])


class Aig:
    """Bit-parallel evaluation: every variable is a Python int whose bit j is its value in lane j."""

    def __init__(self, text: str, mapping: str):
        self.ins, self.lat, self.outs, self.ands = _aag(text)
        self.order = _order(self.ands)
        names = {"input": {}, "output": {}, "latch": {}}
        for line in mapping.splitlines():
            f = line.split()
            if len(f) >= 4 and f[0] in names:
                names[f[0]][int(f[1])] = (f[3], int(f[2]))
        self.in_names, self.out_names = names["input"], names["output"]

    def step(self, lanes: int, inputs: dict, state: list) -> tuple[list, list]:
        """(outputs, next latch values) per bit, lane-parallel; inputs {input index: lanes word}."""
        full = (1 << lanes) - 1
        val = {0: 0}
        for j, lit in enumerate(self.ins):
            val[lit >> 1] = inputs.get(j, 0)
        for j, (lit, _) in enumerate(self.lat):
            val[lit >> 1] = state[j]

        def get(lit):
            x = val[lit >> 1]
            return (full ^ x) if lit & 1 else x
        for v in self.order:
            a, b = self.ands[v]
            val[v] = get(a) & get(b)
        return [get(lit) for lit in self.outs], [get(nx) for _, nx in self.lat]


def _export(code: str, top: str, async_reset: bool, edges: bool = False, expose: bool = False) -> tuple:
    """(AIGER text, map text); with edges also the names of the wires that falling- and rising-edge flip-flops
    drive (the AIG itself has one implicit clock: resynth_edge needs to know which latch steps when); with
    expose every register is also an output of its own name (decode_delay reads their values)."""
    from eda.sandbox import Limits, run
    from eda.tools.yosys import YOSYS
    probe = ["tee -q -o neg.txt select -list t:$_*DFF*_N* %co:+[Q] t:$_*DFF*_N* %d",
             "tee -q -o pos.txt select -list t:$_*DFF*_P* %co:+[Q] t:$_*DFF*_P* %d"] if edges else []
    script = "\n".join([
        "read_verilog -sv design.v", f"hierarchy -top {top}", "proc", "flatten", "opt_clean",
        *(["expose -dff"] if expose else []),
        "memory -nomap", "memory_map", *(["async2sync"] if async_reset else []), "opt -fast",
        "setundef -undriven -zero", "techmap", "opt -fast", "setundef -zero", *probe, "dffunmap", "aigmap",
        "opt_clean", f"write_aiger -ascii -zinit -{'v' if edges else ''}map m.map m.aag"]) + "\n"
    with tempfile.TemporaryDirectory(prefix="rtla-resynth-") as wd:
        Path(wd, "design.v").write_text(code)
        Path(wd, "x.ys").write_text(script)
        r = run(YOSYS.script_cmd("x.ys"), wd, Limits(wall_s=60, cpu_s=60))
        aag, mp = Path(wd, "m.aag"), Path(wd, "m.map")
        if not r.ok or not aag.exists():
            raise TransformError(f"resynth: no AIG ({(r.err or r.out).strip()[-160:]})")
        if not edges:
            return aag.read_text(), mp.read_text()
        wires = [{x.split("/", 1)[-1] for x in Path(wd, f).read_text().split()} for f in ("neg.txt", "pos.txt")]
        return aag.read_text(), mp.read_text(), wires[0], wires[1]


def _runner(aig: Aig, reset: str, low: bool, data: list):
    """run(states, reset_on) -> (next latch tuples, output words), one lane per (state, input vector)."""
    idx = {name: [] for name, _ in data}
    rst_j = None
    for j, (name, bit) in aig.in_names.items():
        if name == reset:
            rst_j = j
        elif name in idx:
            idx[name].append((bit, j))
    if rst_j is None:
        raise TransformError("resynth: the reset is not an input of the AIG")
    nvec = 1 << sum(w for _, w in data)
    nl = len(aig.lat)

    def run(states, reset_on):
        lanes = len(states) * nvec
        word = {}
        off = 0
        for name, w in data:
            for bit, j in idx[name]:
                m = 0
                for lane in range(lanes):
                    if (lane % nvec) >> (off + bit) & 1:
                        m |= 1 << lane
                word[j] = m
            off += w
        full = (1 << lanes) - 1
        word[rst_j] = (0 if low else full) if reset_on else (full if low else 0)
        st = [sum(1 << lane for lane in range(lanes) if states[lane // nvec][b]) for b in range(nl)]
        o, n = aig.step(lanes, word, st)
        return ([tuple((n[b] >> lane) & 1 for b in range(nl)) for lane in range(lanes)],
                [sum(((o[b] >> lane) & 1) << b for b in range(len(o))) for lane in range(lanes)])
    return run


def _vec_case(lines, ind, cells, sig, each):
    """A case over the data-input vector: one arm per group of vectors with the same value."""
    groups = {}
    for v, x in enumerate(cells):
        groups.setdefault(x, []).append(v)
    if len(groups) == 1:
        lines.append(f"{ind}{each(cells[0])}")
        return
    lines.append(f"{ind}case ({sig})")
    for x, vs in groups.items():
        lines.append(f"{ind}    {', '.join(str(v) for v in vs)}: {each(x)}")
    lines.append(f"{ind}endcase")


def _frame(p) -> tuple[str, list, set]:
    """The module's header, its port and parameter declarations, and the names declared as variables."""
    head = p.text(p.module.header)
    decls = [p.text(x) for x in p.module.members
             if x.kind.name == "PortDeclaration" or "Parameter" in x.kind.name
             or x.kind.name in ("DataDeclaration", "NetDeclaration") and _declares_port(p, x)]
    return head, decls, {s.name for s in p.body if s.kind.name == "Variable"}


def _io(m) -> tuple[int, str, str]:
    """What both emitters write of a machine's ports: the output word's width, the data-input vector's
    declaration (rtla_v) and the reset condition."""
    vin = "{" + ", ".join(n for n, _ in reversed(m.ins)) + "}" if m.ins else "1'b0"
    vdecl = f"    wire [{max(1, sum(wd for _, wd in m.ins)) - 1}:0] rtla_v = {vin};"
    return sum(wd for _, wd in m.outs), vdecl, f"!{m.reset}" if m.low else m.reset


def _out_assigns(m, vregs) -> list:
    """The module's outputs driven from the output word rtla_o, as every emitter ends (lines)."""
    L, off = [], 0
    for n, wd in m.outs:
        src = f"rtla_o[{off + wd - 1}:{off}]"
        L.append(f"    always @* {n} = {src};" if n in vregs else f"    assign {n} = {src};")
        off += wd
    return L
