"""Constrained-random stimulus (no LLM): the coverage baseline and the random phase of `rtl-agent cover`.

Emits the full-module stimulus form of `eda.stimulus`: the DUT as `uut`, the clock toggling
every period/2, reset asserted for `reset_cycles` cycles first, then one random value per
data input per cycle (applied at the falling edge so it is stable at the rising edge), and
`$finish`. Values are drawn in Python from `seed`, so a stimulus is plain, self-contained
Verilog that any simulator replays identically. Constraints: the clock is never driven at
random, reset stays deasserted after the start (unless `reset_prob` > 0), and wide inputs
get corner values (0, all ones, one-hot) with probability `corner_prob`.

    text = random_stimulus(ports, "counter", clock="clk", reset="rst_n", reset_active_low=True,
                           cycles=200, seed=1)

`seeded_stimulus` is the build-once variant: values come from `$urandom`, seeded from the
`+seed=N` plusarg, so `eda.coverage.coverage_runs(..., runs=[["+seed=1"], ["+seed=2"]])`
sweeps seeds with one Verilator build instead of one build per stimulus.
"""
import random

STYLES = 4     # input styles of seeded_stimulus(styles=True): seed % STYLES picks one


def _lit(width: int, value: int) -> str:
    return f"{width}'h{value:x}"


def _value(rng: random.Random, width: int, corner_prob: float) -> int:
    if width > 1 and rng.random() < corner_prob:
        return rng.choice([0, (1 << width) - 1, 1 << rng.randrange(width)])
    return rng.getrandbits(width)


def random_stimulus(ports, top: str, clock: str | None = None, reset: str | None = None,
                    reset_active_low: bool = False, cycles: int = 200, seed: int = 0, period_ns: float = 10.0,
                    reset_cycles: int = 2, reset_prob: float = 0.0, corner_prob: float = 0.1,
                    tb_name: str = "tb") -> str:
    """A testbench module driving `top`'s inputs randomly for `cycles` clock cycles (or steps)."""
    rng = random.Random(seed)
    ins = [p for p in ports if p.direction == "input"]
    data = [p for p in ins if p.name not in (clock, reset)]
    on, off = ("1'b0", "1'b1") if reset_active_low else ("1'b1", "1'b0")
    decl = []
    for p in ports:
        rng_s = f"[{p.width - 1}:0] " if p.width > 1 else ""
        decl.append(f"  {'reg' if p.direction == 'input' else 'wire'} {rng_s}{p.name}"
                    f"{' = 0' if p.direction == 'input' else ''};")
    conns = ", ".join(f".{p.name}({p.name})" for p in ports)
    half = period_ns / 2
    step = f"@(negedge {clock});" if clock else f"#{period_ns:g};"
    body = [f"  initial begin  // seed {seed}, {cycles} cycles"]
    if reset and reset in {p.name for p in ins}:
        body.append(f"    {reset} = {on};")
        body += [f"    {step}"] * (reset_cycles if clock else 1)
        body.append(f"    {reset} = {off};")
    for _ in range(cycles):
        assigns = [f"{p.name} = {_lit(p.width, _value(rng, p.width, corner_prob))};" for p in data]
        if reset and reset_prob and rng.random() < reset_prob:
            assigns.append(f"{reset} = {on};")
        elif reset and reset_prob:
            assigns.append(f"{reset} = {off};")
        body.append(f"    {step} " + " ".join(assigns))
    body += [f"    {step}", "    $finish;", "  end"]
    clk = [f"  always #{half:g} {clock} = ~{clock};"] if clock else []
    return "\n".join([f"module {tb_name};"] + decl + [f"  {top} uut({conns});"] + clk + body + ["endmodule", ""])


def is_long(plusargs) -> bool:
    """Whether a seeded_stimulus(styles=True, long_cycles>0) run with these plusargs (+seed=N) is a long round."""
    for a in plusargs:
        if str(a).startswith("+seed="):
            try:
                return (int(str(a)[6:]) % 1000 // STYLES) % 2 == 1
            except ValueError:
                return False
    return False


def _rand_expr(width: int) -> str:
    """`width` random bits from 32-bit $urandom calls."""
    n = (width + 31) // 32
    cat = "$urandom" if n == 1 else "{" + ", ".join(["$urandom"] * n) + "}"
    return cat


def _corners(p, fields=None) -> str:
    """0 / all ones / random, a third each, for the whole input; with fields, half the cycles draw them per
    field instead (whole-input corners still reach carries and sign bits that per-field ones rarely do)."""
    def draw(n, w):
        return f"rtla_r = $urandom % 3; {n} = rtla_r == 0 ? 0 : rtla_r == 1 ? {{{w}{{1'b1}}}} : {_rand_expr(w)};"
    whole = draw(p.name, p.width)
    if not fields:
        return whole
    per = " ".join(draw(f"{p.name}[{lo + w - 1}:{lo}]", w) for lo, w in fields)
    return f"if ($urandom % 2) begin {whole} end else begin {per} end"


def _plain(p, pc: int) -> list:
    """Today's draw for one input: a fresh value, corner values (0, all ones) with probability pc/1000."""
    if p.width > 1 and pc:
        return ["rtla_r = $urandom % 1000;",
                f"if (rtla_r < {pc // 2}) {p.name} = 0; else if (rtla_r < {pc}) {p.name} = {{{p.width}{{1'b1}}}}; "
                f"else {p.name} = {_rand_expr(p.width)};"]
    return [f"{p.name} = {_rand_expr(p.width)};"]


def seeded_stimulus(ports, top: str, clock: str | None = None, reset: str | None = None,
                    reset_active_low: bool = False, cycles: int = 200, seed: int = 0, period_ns: float = 10.0,
                    reset_cycles: int = 2, corner_prob: float = 0.1, tb_name: str = "tb",
                    styles: bool = False, finish: bool = True, fields: dict | None = None,
                    long_cycles: int = 0) -> str:
    """Like random_stimulus, but the values come from $urandom seeded by `+seed=N` (default `seed`).

    styles: the seed also picks how inputs move (seed % 4), so one build sweeps them all:
    0 a fresh value every cycle (the only style without `styles`), 1 held (each input changes
    with probability 1/8), 2 toggling (inverted every cycle, reloaded with probability 1/16),
    3 corner values (0 / all ones / random, a third each) with reset pulses (probability 1/32 per cycle);
    an input listed in `fields` ({name: [(lo, width)]}, eda.hdl.input_fields: the slices the DUT reads,
    e.g. a float's sign/exponent/mantissa) gets those corners per field, independently.
    long_cycles (with styles): every other round of the four styles (seeds 4-7, 12-15, ... counted mod 1000)
    runs this many cycles instead of `cycles`: counters and timers that take thousands of cycles to wrap (a
    clock's hours) are reached by running long, as engineers do, not by formal search.
    finish=False: instead of $finish the testbench sets `rtla_done` and keeps running, so more
    stimulus can continue from the state the random run left (see rtl_agent.jobs.cover)."""
    ins = [p for p in ports if p.direction == "input"]
    data = [p for p in ins if p.name not in (clock, reset)]
    on, off = ("1'b0", "1'b1") if reset_active_low else ("1'b1", "1'b0")
    lines = [f"module {tb_name};"]
    for p in ports:
        rng_s = f"[{p.width - 1}:0] " if p.width > 1 else ""
        lines.append(f"  {'reg' if p.direction == 'input' else 'wire'} {rng_s}{p.name}"
                     f"{' = 0' if p.direction == 'input' else ''};")
    lines.append(f"  {top} uut({', '.join(f'.{p.name}({p.name})' for p in ports)});")
    if clock:
        lines.append(f"  always #{period_ns / 2:g} {clock} = ~{clock};")
    step = f"@(negedge {clock});" if clock else f"#{period_ns:g};"
    pc = int(corner_prob * 1000)
    has_reset = bool(reset and reset in {p.name for p in ins})
    # rtla_ prefix: a DUT port may be called seed, i or r (RTLLM alu has `r`)
    lines += ["  integer rtla_seed, rtla_i, rtla_r, rtla_style, rtla_len;", "  reg rtla_done = 0;",
              "  initial begin",
              f"    if (!$value$plusargs(\"seed=%d\", rtla_seed)) rtla_seed = {int(seed)};",
              "    rtla_r = $urandom(rtla_seed);  // seeds this process's generator",
              f"    rtla_style = {f'rtla_seed % {STYLES}' if styles else '0'};",
              f"    rtla_len = {int(cycles)};"]
    if styles and long_cycles > 0:
        lines.append(f"    if (((rtla_seed % 1000) / {STYLES}) % 2 == 1) rtla_len = {int(long_cycles)};")
    if has_reset:
        lines += [f"    {reset} = {on};"] + [f"    {step}"] * (reset_cycles if clock else 1) + [f"    {reset} = {off};"]
    lines += ["    for (rtla_i = 0; rtla_i < rtla_len; rtla_i = rtla_i + 1) begin", f"      {step}"]
    for p in data:
        if not styles:
            lines += ["      " + x for x in _plain(p, pc)]
            continue
        ones = f"{{{p.width}{{1'b1}}}}"
        lines += ["      case (rtla_style)",
                  f"        1: if ($urandom % 8 == 0) {p.name} = {_rand_expr(p.width)};",
                  f"        2: if ($urandom % 16 == 0) {p.name} = {_rand_expr(p.width)}; else {p.name} = ~{p.name};",
                  f"        3: begin {_corners(p, (fields or {}).get(p.name))} end",
                  "        default: begin " + " ".join(_plain(p, pc)) + " end",
                  "      endcase"]
    if styles and has_reset:
        lines.append(f"      if (rtla_style == 3) {reset} = ($urandom % 32 == 0) ? {on} : {off};")
    lines += ["    end", f"    {step}"]
    if has_reset and styles:
        lines.append(f"    {reset} = {off};")
    lines += ["    $finish;" if finish else "    rtla_done = 1;", "  end", "endmodule", ""]
    return "\n".join(lines)


def compare_testbench(ports, top: str, golden: str, clock: str | None = None, reset: str | None = None,
                      reset_active_low: bool = False, cycles: int = 1000, seed: int = 1,
                      period_ns: float = 10.0) -> str:
    """A self-checking testbench for a design without one: `top` (the candidate, `uut`) and `golden` (the reference,
    renamed) get the same constrained-random inputs (reset held for 3 cycles first, then never asserted; values
    from $random(seed), changed at the falling edge) and every output is compared after each rising edge (each
    step for a combinational design), where the reference's output has no X. Prints the RTLLM verdict lines.
    A fast screen before the equivalence proof, not a proof."""
    ins = [p for p in ports if p.direction == "input"]
    outs = [p for p in ports if p.direction == "output"]
    data = [p for p in ins if p.name not in (clock, reset)]
    decl = [f"  reg {_rng(p)}{p.name};" for p in ins] + [f"  wire {_rng(p)}{p.name}__dut, {p.name}__ref;" for p in outs]
    conn = ", ".join(f".{p.name}({p.name})" for p in ins)
    dut = conn + "".join(f", .{p.name}({p.name}__dut)" for p in outs)
    ref = conn + "".join(f", .{p.name}({p.name}__ref)" for p in outs)
    drive = "".join(f"      {p.name} = {_random_of(p.width)};\n" for p in data)
    on, off = ("1'b0", "1'b1") if reset_active_low else ("1'b1", "1'b0")
    check = "".join(f"      if (({p.name}__ref ^ {p.name}__ref) === 0 && {p.name}__ref !== {p.name}__dut) begin\n"
                    f"        errors = errors + 1;\n        if (errors <= 3) $display(\"mismatch at step %0d: "
                    f"{p.name} = %h, reference %h\", i, {p.name}__dut, {p.name}__ref);\n      end\n" for p in outs)
    half = period_ns / 2
    if clock:
        start = (f"    {clock} = 1'b0;\n" + (f"    {reset} = {on};\n" if reset else "")
                 + drive.replace("      ", "    ")
                 + f"    repeat (3) @(posedge {clock});\n    #1;\n" + (f"    {reset} = {off};\n" if reset else ""))
        step = f"      @(negedge {clock});\n{drive}      @(posedge {clock});\n      #1;\n"
        clk = f"  always #{half:g} {clock} = ~{clock};\n"
    else:
        start, clk = (f"    {reset} = {off};\n" if reset else ""), ""
        step = f"{drive}      #{half:g};\n"
    return (f"`timescale 1ns/1ps\nmodule tb;\n" + "\n".join(decl) + f"\n  integer i, errors = 0, seed = {seed};\n"
            f"  {top} uut({dut});\n  {golden} gold({ref});\n{clk}  initial begin\n{start}"
            f"    for (i = 0; i < {cycles}; i = i + 1) begin\n{step}{check}    end\n"
            "    if (errors == 0) $display(\"===========Your Design Passed===========\");\n"
            "    else $display(\"===========Test completed with %0d failures===========\", errors);\n"
            "    $finish;\n  end\nendmodule\n")


def _rng(p) -> str:
    return f"[{p.width - 1}:0] " if p.width > 1 else ""


def _random_of(width: int) -> str:
    n = (width + 31) // 32
    return "$random(seed)" if n == 1 else "{" + ", ".join(["$random(seed)"] * n) + "}"
