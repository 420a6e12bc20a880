"""Generated designs for the choice benchmark (issue 57): flat modules whose library options outnumber the budget,
some of which pay and some of which the flow refutes.

The corpus' one-deep menus almost never pay (bench/results/choice_replay.md: 3 of 61 options gain, all < 1%),
so no chooser can be told from random there. A generated design is one module made of N independent blocks
drawn (seeded) from the templates below, written fresh for this benchmark (no RTLLM or VerilogEval text). Each
block has its own inputs and its own output ports (names prefixed per instance), so what one option does to its
block does not depend on the others. Templates are sized by the patterns the library recognises and by
decoys where the library's options are wrong:

    counter   a counter that wraps at a constant far below its declared width (narrow, idle: hold/reset matter)
    fsm       a state machine with sparse, wide state codes (fsm_encode; idle on its register fails)
    condsum   a sum of conditionally added bits (cond_arith per site and all at once)
    dupop     one operator written twice in different widths (share)
    lazyreg   a register loaded under a valid that also gates its output (idle: no_hold/no_reset prove)
    cmpconst  comparisons of an offset operand against constants (datapath folds them)
    sumtree   a sum written as a chain, products under a select, constants to fold (datapath)
    accum     an accumulator whose hold and reset matter (decoy: idle's options fail)
    shiftreg  a delay line whose reset is observable (decoy)

    .venv/bin/python bench/choice_gen.py --seed 3 --blocks 8 > /tmp/g3.v     # one design's text
    generate(seed, blocks) -> (code, top, [template names])
"""
from __future__ import annotations

import argparse
import random

TOP = "gen_top"


def _counter_block(p: str, w: int, lim: int):
    """A w-bit counter that wraps at lim when enabled: ports and body."""
    ports = [("input", 1, f"{p}_en"), ("output", 1, f"{p}_tick"), ("output", 4, f"{p}_low")]
    body = f"""  reg [{w - 1}:0] {p}_cnt;
  always @(posedge clk) begin
    if (rst) {p}_cnt <= {w}'d0;
    else if ({p}_en) begin
      if ({p}_cnt == {w}'d{lim}) {p}_cnt <= {w}'d0;
      else {p}_cnt <= {p}_cnt + {w}'d1;
    end
  end
  assign {p}_tick = ({p}_cnt == {w}'d{lim}) & {p}_en;
  assign {p}_low = {p}_cnt[3:0];
"""
    return ports, body


def _counter(r: random.Random, p: str):
    w = r.choice((12, 16))
    lim = r.randrange(5, 40)
    return _counter_block(p, w, lim)


def _fsm(r: random.Random, p: str):
    n = r.choice((3, 4, 5))
    w = r.choice((6, 8))
    codes = sorted(r.sample(range(1, 1 << w), n - 1))
    codes = [0] + codes
    names = [f"{p.upper()}_S{i}" for i in range(n)]
    params = "\n".join(f"  localparam [{w - 1}:0] {nm} = {w}'d{c};" for nm, c in zip(names, codes))
    arms = []
    for i, nm in enumerate(names):
        go, back = names[(i + 1) % n], names[r.randrange(0, max(1, i))]
        arms.append(f"      {nm}: if ({p}_go) {p}_nxt = {go}; else if ({p}_back) {p}_nxt = {back};")
    outs = r.sample(names, 2)
    ports = [("input", 1, f"{p}_go"), ("input", 1, f"{p}_back"), ("output", 1, f"{p}_busy"),
             ("output", 1, f"{p}_done")]
    body = f"""{params}
  reg [{w - 1}:0] {p}_st, {p}_nxt;
  always @* begin
    {p}_nxt = {p}_st;
    case ({p}_st)
{chr(10).join(arms)}
      default: {p}_nxt = {names[0]};
    endcase
  end
  always @(posedge clk) begin
    if (rst) {p}_st <= {names[0]};
    else {p}_st <= {p}_nxt;
  end
  assign {p}_busy = ({p}_st == {outs[0]});
  assign {p}_done = ({p}_st != {outs[1]});
"""
    return ports, body


def _condsum(r: random.Random, p: str):
    n = r.choice((5, 6, 8))
    ow = (n).bit_length()
    ifs = "\n".join(f"    if ({p}_v[{i}]) {p}_s = {p}_s + {ow}'d1;" for i in range(n))
    ports = [("input", n, f"{p}_v"), ("output", ow, f"{p}_count")]
    body = f"""  reg [{ow - 1}:0] {p}_s;
  always @* begin
    {p}_s = {ow}'d0;
{ifs}
  end
  assign {p}_count = {p}_s;
"""
    return ports, body


def _dupop(r: random.Random, p: str):
    w = r.choice((4, 6, 8))
    op = r.choice(("*", "+"))
    ow = 2 * w if op == "*" else w + 1
    ports = [("input", w, f"{p}_a"), ("input", w, f"{p}_b"), ("input", 4, f"{p}_c"),
             ("output", ow, f"{p}_y"), ("output", ow + 3, f"{p}_z")]
    body = f"""  assign {p}_y = {p}_a {op} {p}_b;
  assign {p}_z = {p}_a {op} {p}_b + {p}_c;
"""
    return ports, body


def _lazyreg(r: random.Random, p: str):
    w = r.choice((8, 12, 16))
    ports = [("input", 1, f"{p}_ld"), ("input", w, f"{p}_d"), ("output", w, f"{p}_q")]
    body = f"""  reg [{w - 1}:0] {p}_r;
  reg {p}_v;
  always @(posedge clk) begin
    if (rst) begin
      {p}_r <= {w}'d0;
      {p}_v <= 1'b0;
    end else begin
      {p}_v <= {p}_ld;
      if ({p}_ld) {p}_r <= {p}_d;
    end
  end
  assign {p}_q = {p}_v ? {p}_r : {w}'d0;
"""
    return ports, body


def _cmpconst(r: random.Random, p: str):
    w = r.choice((8, 10))
    k1, k2 = r.randrange(1, 12), r.randrange(30, 120)
    lo, hi = r.randrange(k1 + 1, 60), r.randrange(130, 250)
    ports = [("input", w, f"{p}_x"), ("output", 1, f"{p}_in"), ("output", 1, f"{p}_hi")]
    body = f"""  assign {p}_in = (({p}_x + {w}'d{k1}) > {w}'d{lo}) & (({p}_x + {w}'d{k1}) < {w}'d{hi});
  assign {p}_hi = ({p}_x - {w}'d{k2}) > {w}'d{hi - k2};
"""
    return ports, body


def _sumtree(r: random.Random, p: str):
    w = r.choice((6, 8))
    k1, k2 = r.randrange(1, 9), r.randrange(1, 9)
    ports = [("input", w, f"{p}_a"), ("input", w, f"{p}_b"), ("input", w, f"{p}_c"), ("input", w, f"{p}_d"),
             ("input", 1, f"{p}_sel"), ("output", w + 2, f"{p}_s"), ("output", 2 * w, f"{p}_m"),
             ("output", w + 2, f"{p}_k")]
    body = f"""  assign {p}_s = ((({p}_a + {p}_b) + {p}_c) + {p}_d);
  assign {p}_m = {p}_sel ? {p}_a * {p}_b : {p}_c * {p}_d;
  assign {p}_k = ({p}_a + {w}'d{k1}) + ({p}_b + {w}'d{k2}) - {w}'d{k1 + k2 - 1};
"""
    return ports, body


def _accum(r: random.Random, p: str):
    w = r.choice((8, 12))
    ports = [("input", 1, f"{p}_en"), ("input", 4, f"{p}_d"), ("output", w, f"{p}_acc")]
    body = f"""  reg [{w - 1}:0] {p}_a;
  always @(posedge clk) begin
    if (rst) {p}_a <= {w}'d0;
    else if ({p}_en) {p}_a <= {p}_a + {p}_d;
  end
  assign {p}_acc = {p}_a;
"""
    return ports, body


def _shiftreg(r: random.Random, p: str):
    w = r.choice((4, 8))
    ports = [("input", 1, f"{p}_sh"), ("input", w, f"{p}_i"), ("output", w, f"{p}_o")]
    body = f"""  reg [{w - 1}:0] {p}_r0, {p}_r1;
  always @(posedge clk) begin
    if (rst) begin
      {p}_r0 <= {w}'d0;
      {p}_r1 <= {w}'d0;
    end else if ({p}_sh) begin
      {p}_r0 <= {p}_i;
      {p}_r1 <= {p}_r0;
    end
  end
  assign {p}_o = {p}_r1;
"""
    return ports, body


TEMPLATES = {"counter": _counter, "fsm": _fsm, "condsum": _condsum, "dupop": _dupop, "lazyreg": _lazyreg,
             "cmpconst": _cmpconst, "sumtree": _sumtree, "accum": _accum, "shiftreg": _shiftreg}
DECOYS = ("accum", "shiftreg")


def assemble(r, kinds: list, templates: dict) -> str:
    """The top module of the blocks named by kinds, each under a fresh two-syllable prefix (r draws them)."""
    ports, bodies, used = [], [], set()
    for k in kinds:
        while True:
            p = "".join(r.choice("bcdfghjklmnpqrstvwz") + r.choice("aeiou") for _ in range(2))
            if p not in used:
                used.add(p)
                break
        pp, body = templates[k](r, p)
        ports += pp
        bodies.append(f"  // block {p}\n{body}")
    decl = ",\n".join(["  input clk", "  input rst"] +
                      [f"  {d} {'' if w == 1 else f'[{w - 1}:0] '}{n}" for d, w, n in ports])
    code = f"module {TOP} (\n{decl}\n);\n" + "\n".join(bodies) + "endmodule\n"
    return code


def generate(seed: int, blocks: int = 8) -> tuple[str, str, list]:
    """One flat module of `blocks` independent blocks: at least one decoy, the rest drawn from every template
    (no template more than twice), the instance names random so labels differ between designs."""
    r = random.Random(seed)
    kinds = [r.choice(DECOYS)]
    while len(kinds) < blocks:
        k = r.choice(sorted(TEMPLATES))
        if kinds.count(k) < 2:
            kinds.append(k)
    r.shuffle(kinds)
    return assemble(r, kinds, TEMPLATES), TOP, kinds


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--blocks", type=int, default=8)
    a = ap.parse_args()
    print(generate(a.seed, a.blocks)[0], end="")


if __name__ == "__main__":
    main()
