"""Recognise an operator: a combinational module whose outputs equal a canonical form of its inputs (`a + b`,
`a + b + cin`, `a - b`, `a * b`, shifts, comparisons, min/max, a population count) is replaced by that form.

Forms are proposed from the port widths and screened by one random simulation of the design (Icarus, in the
sandbox): only forms that match on every vector become options. Synthesis then builds the operator from its own
library (a Booth or Wallace multiplier, a fast adder) instead of the written-out structure: mult8's
shift-and-add array becomes `a * b` (1.59x on Nangate45). The flow proves each option; the screen only keeps
the menu short.
"""
from __future__ import annotations

import random
import tempfile
from itertools import combinations, permutations
from pathlib import Path

from . import register
from .base import Design, Option, Transform, TransformError

_MAX_IN_BITS = 64           # wider operands are not screened (and rarely written out by hand)
_VECTORS = 200


def _ports(p) -> tuple[list, list]:
    ins, outs = [], []
    for port in p.body.portList:
        w = int(port.type.bitWidth)
        (ins if port.direction.name == "In" else outs).append((port.name, w))
    return ins, outs


def _forms(ins: list, out_w: int) -> dict:
    """{label: expression} proposed from the inputs' widths."""
    wide = [n for n, w in ins if w > 1]
    bits = [n for n, w in ins if w == 1]
    forms = {}
    if len(wide) >= 3:
        forms[" + ".join(wide)] = " + ".join(wide)
        if bits:
            forms[" + ".join(wide + bits)] = " + ".join(wide + bits)
    for a, b in permutations(wide if len(wide) <= 6 else (), 2):
        forms.update({f"{a} - {b}": f"{a} - {b}", f"{a} << {b}": f"{a} << {b}", f"{a} >> {b}": f"{a} >> {b}",
                      f"{a} < {b}": f"{a} < {b}", f"{a} <= {b}": f"{a} <= {b}"})
        for c in bits:
            forms[f"{a} - {b} - {c}"] = f"{a} - {b} - {c}"
    for a, b in combinations(wide if len(wide) <= 6 else (), 2):      # commutative: one order
        forms.update({f"{a} + {b}": f"{a} + {b}", f"{a} * {b}": f"{a} * {b}", f"{a} == {b}": f"{a} == {b}",
                      f"min({a}, {b})": f"({a} < {b}) ? {a} : {b}", f"max({a}, {b})": f"({a} > {b}) ? {a} : {b}"})
        for c in bits:
            forms[f"{a} + {b} + {c}"] = f"{a} + {b} + {c}"
    for x, w in ins:
        if 1 < w <= _MAX_IN_BITS:
            forms[f"popcount({x})"] = " + ".join(f"{x}[{i}]" for i in range(w))
    return forms


def _targets(outs: list) -> list:
    """Left-hand sides: the one output, or two outputs concatenated either way ({cout, sum})."""
    names = [n for n, _ in outs]
    if len(names) == 1:
        return [names[0]]
    if len(names) == 2:
        return [f"{{{names[0]}, {names[1]}}}", f"{{{names[1]}, {names[0]}}}"]
    return []


def _screen(code: str, top: str, ins: list, outs: list, forms: dict, lhs: str) -> list:
    """Labels of the forms equal to the design on random vectors (and corners): one Icarus run."""
    from eda.sandbox import Limits, run
    from eda.tools.icarus import ICARUS
    out_w = sum(w for _, w in outs)
    rnd = random.Random(0)
    vecs = [{n: v for n, w in ins} for v in (0,)] + [{n: (1 << w) - 1 for n, w in ins}] + \
        [{n: rnd.getrandbits(w) for n, w in ins} for _ in range(_VECTORS)]
    labels = sorted(forms)
    tb = ["module rtla_recognise_tb;"]
    tb += [f"  reg [{w - 1}:0] {n};" for n, w in ins]
    tb += [f"  wire [{w - 1}:0] {n};" for n, w in outs]
    tb += [f"  {top} dut ({', '.join(f'.{n}({n})' for n, _ in ins + outs)});"]
    tb += [f"  wire [{out_w - 1}:0] f{i} = {forms[k]};" for i, k in enumerate(labels)]
    tb += [f"  reg [{len(labels) - 1}:0] bad = 0;", "  initial begin"]
    for v in vecs:
        tb.append("    " + " ".join(f"{n} = {ins_w}'d{v[n]};" for n, ins_w in ins) + " #1;")
        tb.append("    " + " ".join(f"if (f{i} !== {lhs}) bad[{i}] = 1;" for i in range(len(labels))))
    tb += ['    $display("RTLA_BAD %b", bad);', "    $finish;", "  end", "endmodule"]
    with tempfile.TemporaryDirectory(prefix="rtla-recog-") as wd:
        Path(wd, "design.v").write_text(code)
        Path(wd, "tb.v").write_text("\n".join(tb) + "\n")
        lim = Limits(wall_s=60, cpu_s=60)
        argv, log = ICARUS.build(["design.v", "tb.v"], "rtla_recognise_tb", Path(wd), lim)
        if argv is None:
            return []
        r = run(argv, wd, lim)
    line = next((ln for ln in r.out.splitlines() if ln.startswith("RTLA_BAD ")), None)
    if line is None:
        return []
    bad = line.split()[1][::-1]
    return [k for i, k in enumerate(labels) if i < len(bad) and bad[i] == "0"]


def _declares_port(p, member) -> bool:
    ports = {port.name for port in p.body.portList}
    names = [x.name.valueText for x in member.declarators if hasattr(x, "name")]
    return bool(names) and all(n in ports for n in names)


class Recognise(Transform):
    name = "recognise"
    summary = "a combinational module that equals a canonical operator becomes that operator"

    def options(self, d: Design) -> list[Option]:
        p = d.parsed()
        if "posedge" in d.code or "negedge" in d.code or p.module.header.ports is None:
            return []
        ins, outs = _ports(p)
        if not ins or not outs or any(w > _MAX_IN_BITS for _, w in ins):
            return []
        forms = _forms(ins, sum(w for _, w in outs))
        opts = []
        for lhs in _targets(outs):
            for label in _screen(d.code, d.top, ins, outs, forms, lhs.replace(" ", "")):
                opts.append(self.option(lhs, f"replace the module body by {lhs} = {label}", lhs=lhs,
                                        expr=forms[label]))
        return opts

    def apply(self, d: Design, o: Option) -> str:
        p = d.parsed()
        lhs, expr = o.params.get("lhs"), o.params.get("expr")
        if not lhs or not expr:
            raise TransformError("recognise: option without a form")
        head = p.text(p.module.header)
        # a non-ANSI header lists names only: its port declarations (and their reg/wire lines) stay
        decls = [p.text(m) for m in p.module.members
                 if m.kind.name == "PortDeclaration" or m.kind.name in ("DataDeclaration", "NetDeclaration")
                 and _declares_port(p, m)]
        regs = [s.name for s in p.body if s.kind.name == "Variable" and s.name in lhs]
        body = f"    always @* {lhs} = {expr};" if regs else f"    assign {lhs} = {expr};"
        return "\n".join([head, *(f"    {x.strip()}" for x in decls), body, "endmodule", ""])


register(Recognise())
