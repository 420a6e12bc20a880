"""Generated designs for the choice benchmark, version 2 (issue 57): bigger menus (>= 30 options one deep), and
payoffs that depend on an option's context, not on its kind.

Version 1 (bench/choice_gen.py) was regular: every counter wrapped far below its width (narrow always paid),
every idle site was a decoy (idle always failed), so a ranker learned kind priors and nothing else. Here each
template draws the context that decides whether an option pays:

    counter_v  wraps at a small limit (narrow pays) or at one the testbench never reaches (narrow is offered from
               the observed range, its estimate promises much, the proof refutes it)
    lazy_v     a register loaded under a valid; its output gated by the valid (idle's no-hold proves) or not
    dupop_v    one operator written twice, operands 3 to 12 bits (share pays only where operands are wide)
    accum_v    an accumulator, its output read always (idle fails) or only on a strobe (its reset still matters)
    sumsel     version 1's sumtree with a select of sums for its products (a product's proof does not finish)
and version 1's condsum, fsm, cmpconst, accum and shiftreg.

Template families are split: train designs draw only TRAIN_FAMILY; held-out designs draw from it and from
HELD_FAMILY, templates no train design contains (at least HELD_MIN blocks each):

    satcnt     a saturating counter at a small or an unreachable limit (narrow, idle)
    gatepipe   a two-stage valid pipeline, data read only under its valid or always (idle)
    muxalu     a case over an opcode computing + and - (and a shift) of wide or narrow operands (mux_share)
    loopsum    a for loop summing or counting bits of an input (loop_tree, cond_arith)
    updown     an up/down counter with written-out wraps (counter_toggle)

Every template is written fresh for this benchmark (no RTLLM or VerilogEval text).

    .venv/bin/python bench/choice_gen2.py --seed 3 --split held_out > /tmp/g.v
    generate(seed, split, blocks) -> (code, top, [template names])
"""
from __future__ import annotations

import argparse
import random

from bench.choice_gen import TOP, _accum, _counter_block, _cmpconst, _condsum, _fsm, _shiftreg, assemble

BLOCKS = 7
HELD_MIN = 2


def _counter_v(r: random.Random, p: str):
    w = r.choice((10, 12, 16))
    # small: the testbench sees the wrap and narrow is sound; far: it never does (beyond a few thousand cycles)
    lim = r.randrange(5, 40) if r.random() < 0.5 else (1 << w) - r.randrange(2, 200)
    return _counter_block(p, w, lim)


def _lazy_v(r: random.Random, p: str):
    w = r.choice((6, 8, 12, 16))
    gated = r.random() < 0.5
    out = f"{p}_v ? {p}_r : {w}'d0" if gated else f"{p}_r"
    ports = [("input", 1, f"{p}_ld"), ("input", w, f"{p}_d"), ("output", w, f"{p}_q"), ("output", 1, f"{p}_ok")]
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
  assign {p}_q = {out};
  assign {p}_ok = {p}_v;
"""
    return ports, body


def _dupop_v(r: random.Random, p: str):
    w = r.choice((3, 4, 6, 8, 10, 12))
    op = r.choice(("*", "+", "-"))
    ow = 2 * w if op == "*" else w + 1
    ports = [("input", w, f"{p}_a"), ("input", w, f"{p}_b"), ("input", 4, f"{p}_c"),
             ("output", ow, f"{p}_y"), ("output", ow + 2, f"{p}_z")]
    body = f"""  assign {p}_y = {p}_a {op} {p}_b;
  assign {p}_z = ({p}_a {op} {p}_b) + {p}_c;
"""
    return ports, body


def _accum_v(r: random.Random, p: str):
    w = r.choice((8, 10, 12))
    strobe = r.random() < 0.5
    out = f"{p}_rd ? {p}_a : {w}'d0" if strobe else f"{p}_a"
    ports = [("input", 1, f"{p}_en"), ("input", 1, f"{p}_rd"), ("input", 4, f"{p}_d"), ("output", w, f"{p}_acc")]
    body = f"""  reg [{w - 1}:0] {p}_a;
  always @(posedge clk) begin
    if (rst) {p}_a <= {w}'d0;
    else if ({p}_en) {p}_a <= {p}_a + {p}_d;
  end
  assign {p}_acc = {out};
"""
    return ports, body


def _sumsel(r: random.Random, p: str):
    """Version 1's sumtree without its products (a multiplier's proof does not finish in the flow's time: 56 s
    spent and nothing proven, bench/results/choice_gen_v1.md), a select of sums instead."""
    w = r.choice((4, 6, 8, 12))
    k1, k2 = r.randrange(1, 9), r.randrange(1, 9)
    ports = [("input", w, f"{p}_a"), ("input", w, f"{p}_b"), ("input", w, f"{p}_c"), ("input", w, f"{p}_d"),
             ("input", 1, f"{p}_sel"), ("output", w + 2, f"{p}_s"), ("output", w + 1, f"{p}_m"),
             ("output", w + 2, f"{p}_k")]
    body = f"""  assign {p}_s = ((({p}_a + {p}_b) + {p}_c) + {p}_d);
  assign {p}_m = {p}_sel ? {p}_a + {p}_b : {p}_c + {p}_d;
  assign {p}_k = ({p}_a + {w}'d{k1}) + ({p}_b + {w}'d{k2}) - {w}'d{k1 + k2 - 1};
"""
    return ports, body


def _satcnt(r: random.Random, p: str):
    w = r.choice((10, 12, 14))
    lim = r.randrange(6, 50) if r.random() < 0.5 else (1 << w) - r.randrange(3, 100)
    ports = [("input", 1, f"{p}_inc"), ("input", 1, f"{p}_clr"), ("output", 1, f"{p}_full"),
             ("output", 3, f"{p}_lsb")]
    body = f"""  reg [{w - 1}:0] {p}_n;
  always @(posedge clk) begin
    if (rst | {p}_clr) {p}_n <= {w}'d0;
    else if ({p}_inc && {p}_n < {w}'d{lim}) {p}_n <= {p}_n + 1'b1;
  end
  assign {p}_full = {p}_n >= {w}'d{lim};
  assign {p}_lsb = {p}_n[2:0];
"""
    return ports, body


def _gatepipe(r: random.Random, p: str):
    w = r.choice((8, 12, 16))
    gated = r.random() < 0.6
    out = f"{p}_v1 ? {p}_d1 : {w}'d0" if gated else f"{p}_d1"
    ports = [("input", 1, f"{p}_iv"), ("input", w, f"{p}_id"), ("output", 1, f"{p}_ov"), ("output", w, f"{p}_od")]
    body = f"""  reg {p}_v0, {p}_v1;
  reg [{w - 1}:0] {p}_d0, {p}_d1;
  always @(posedge clk) begin
    if (rst) begin
      {p}_v0 <= 1'b0; {p}_v1 <= 1'b0;
      {p}_d0 <= {w}'d0; {p}_d1 <= {w}'d0;
    end else begin
      {p}_v0 <= {p}_iv;
      {p}_v1 <= {p}_v0;
      if ({p}_iv) {p}_d0 <= {p}_id ^ {w}'d{r.randrange(1, 1 << w)};
      if ({p}_v0) {p}_d1 <= {p}_d0 + {w}'d{r.randrange(1, 16)};
    end
  end
  assign {p}_ov = {p}_v1;
  assign {p}_od = {out};
"""
    return ports, body


def _muxalu(r: random.Random, p: str):
    w = r.choice((4, 6, 8, 12, 16))
    arms = [f"{p}_a + {p}_b", f"{p}_a - {p}_b", f"{p}_b + {p}_c", f"{p}_c - {p}_a"]
    r.shuffle(arms)
    arms = arms[:r.choice((2, 3, 4))] + [f"{p}_a >> {p}_b[1:0]"]
    cases = "\n".join(f"      2'd{i}: {p}_y = {e};" for i, e in enumerate(arms[:3]))
    ports = [("input", w, f"{p}_a"), ("input", w, f"{p}_b"), ("input", w, f"{p}_c"), ("input", 2, f"{p}_op"),
             ("output", w, f"{p}_out")]
    body = f"""  reg [{w - 1}:0] {p}_y;
  always @* begin
    case ({p}_op)
{cases}
      default: {p}_y = {arms[-1]};
    endcase
  end
  assign {p}_out = {p}_y;
"""
    return ports, body


def _loopsum(r: random.Random, p: str):
    n = r.choice((4, 6, 8))
    ew = r.choice((1, 3, 4))
    ow = (n * ((1 << ew) - 1)).bit_length()
    term = f"{p}_x[{p}_i]" if ew == 1 else f"{p}_x[{p}_i*{ew} +: {ew}]"
    ports = [("input", n * ew, f"{p}_x"), ("output", ow, f"{p}_sum")]
    body = f"""  reg [{ow - 1}:0] {p}_s;
  integer {p}_i;
  always @* begin
    {p}_s = {ow}'d0;
    for ({p}_i = 0; {p}_i < {n}; {p}_i = {p}_i + 1)
      {p}_s = {p}_s + {term};
  end
  assign {p}_sum = {p}_s;
"""
    return ports, body


def _updown(r: random.Random, p: str):
    w = r.choice((4, 6, 8, 10))
    top = (1 << w) - 1
    ports = [("input", 1, f"{p}_en"), ("input", 1, f"{p}_up"), ("output", w, f"{p}_q")]
    body = f"""  reg [{w - 1}:0] {p}_c;
  always @(posedge clk) begin
    if (rst) {p}_c <= {w}'d0;
    else if ({p}_en) begin
      if ({p}_up) begin
        if ({p}_c == {w}'d{top}) {p}_c <= {w}'d0;
        else {p}_c <= {p}_c + {w}'d1;
      end else begin
        if ({p}_c == {w}'d0) {p}_c <= {w}'d{top};
        else {p}_c <= {p}_c - {w}'d1;
      end
    end
  end
  assign {p}_q = {p}_c;
"""
    return ports, body


TRAIN_FAMILY = {"counter_v": _counter_v, "lazy_v": _lazy_v, "dupop_v": _dupop_v, "accum_v": _accum_v,
                "condsum": _condsum, "fsm": _fsm, "cmpconst": _cmpconst, "sumsel": _sumsel, "accum": _accum,
                "shiftreg": _shiftreg}
HELD_FAMILY = {"satcnt": _satcnt, "gatepipe": _gatepipe, "muxalu": _muxalu, "loopsum": _loopsum,
               "updown": _updown}
TEMPLATES = {**TRAIN_FAMILY, **HELD_FAMILY}


def generate(seed: int, split: str, blocks: int = BLOCKS) -> tuple[str, str, list]:
    """One flat module of `blocks` independent blocks (no template more than twice, instance names random);
    a held-out design has at least HELD_MIN blocks of HELD_FAMILY, a train design none."""
    if split not in ("train", "held_out"):
        raise ValueError(f"split must be train or held_out, not {split!r}")
    r = random.Random(seed * 7919 + (split == "held_out"))
    kinds = [r.choice(sorted(HELD_FAMILY)) for _ in range(HELD_MIN)] if split == "held_out" else []
    pool = sorted(TEMPLATES) if split == "held_out" else sorted(TRAIN_FAMILY)
    while len(kinds) < blocks:
        k = r.choice(pool)
        if kinds.count(k) < 2:
            kinds.append(k)
    r.shuffle(kinds)
    return assemble(r, kinds, TEMPLATES), TOP, kinds


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--split", default="held_out", choices=("train", "held_out"))
    ap.add_argument("--blocks", type=int, default=BLOCKS)
    a = ap.parse_args()
    print(generate(a.seed, a.split, a.blocks)[0], end="")


if __name__ == "__main__":
    main()
