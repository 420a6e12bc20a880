"""retime: which register pairs it moves, the text it writes, and the flow deciding: a correct retiming (registers
that no longer correspond one to one) is proven, the same move across registers with an enable is refuted
(real Yosys/ABC proofs)."""
import re

import pytest

from eda.flow import FlowJob, evaluate
from rtl_agent.transforms import Design, TransformError, apply, options

# the two 8-bit operand registers are read only by `x_q + y_q`: one 9-bit register of their sum replaces them
PIPE = """module m(input clk, input rst_n, input [7:0] a, input [7:0] b, input [7:0] c, output reg [8:0] y);
  reg [7:0] x_q, y_q, z_q;
  reg [7:0] c_q;
  always @(posedge clk or negedge rst_n) begin
    if (!rst_n) begin
      x_q <= 8'd1;
      y_q <= 8'd2;
      c_q <= 8'd0;
      y <= 9'd0;
    end else begin
      x_q <= a;
      y_q <= b ^ c;
      c_q <= c;
      y <= x_q + y_q;
    end
  end
endmodule
"""


def _flat(text):
    return " ".join(text.split())


def _opts(code):
    return {o.label: o for o in options(Design(code, "m"), kinds_=("retime",))}


def test_the_pair_moves_with_its_reset_value_and_declarations():
    opts = _opts(PIPE)
    assert list(opts) == ["x_q + y_q: registered as one 9-bit result, 1 stage(s) back (7 flops fewer)"]
    out = _flat(apply(Design(PIPE, "m"), next(iter(opts.values()))))
    assert "reg [8:0] x_q_plus_y_q;" in out and not re.search(r"\b[xy]_q <=", out)
    assert "x_q_plus_y_q <= 9'd3;" in out                        # 1 + 2: P == x_q + y_q holds in reset too
    # b ^ c is evaluated at 8 bits for y_q and would be at 9 in the sum: a wire keeps its width
    assert "wire [7:0] x_q_plus_y_q_b = b ^ c;" in out and "x_q_plus_y_q <= a + x_q_plus_y_q_b;" in out
    assert "y <= x_q_plus_y_q;" in out
    assert "reg [7:0] z_q;" in out                               # the declaration's other name stays
    # left alone: a register read twice, one loaded under an enable, a sum as wide as both operands
    assert _opts(PIPE.replace("c_q <= c;", "c_q <= x_q;")) == {}
    assert _opts(PIPE.replace("x_q <= a;", "if (c[0]) x_q <= a;")) == {}
    wide = PIPE.replace("y <= x_q + y_q;", "y <= x_q * y_q;").replace("reg [8:0] y", "reg [15:0] y")
    assert _opts(wide) == {}
    assert len(_opts(wide.replace("reg [15:0] y", "reg [11:0] y"))) == 1     # the product's low 12 bits: narrower
    with pytest.raises(TransformError):
        apply(Design(PIPE, "m"), next(iter(opts.values())).__class__("retime", "x", {"pair": ["c_q", "x_q"]}, "x"))


def test_a_chain_of_delayed_operands_becomes_a_chain_of_sums():
    chain = PIPE.replace("y <= x_q + y_q;", "y <= x2 + y2;").replace("c_q <= c;", "c_q <= c; x2 <= x_q; y2 <= y_q;")
    chain = chain.replace("reg [7:0] c_q;", "reg [7:0] c_q, x2, y2;").replace("c_q <= 8'd0;", "c_q <= 8'd0; x2 <= 0; y2 <= 0;")
    opts = _opts(chain)
    assert [o.label for o in opts.values()] == ["x2 + y2: registered as one 9-bit result, 2 stage(s) back (14 flops fewer)"]
    out = _flat(apply(Design(chain, "m"), next(iter(opts.values()))))
    assert "x_q_plus_y_q <= a + x_q_plus_y_q_b;" in out and "x2_plus_y2 <= x_q_plus_y_q;" in out and "y <= x2_plus_y2;" in out


@pytest.mark.requires("yosys")
def test_retiming_is_proven_and_the_move_across_an_enable_refuted():
    job = FlowJob(top="m", ref={"ref.v": PIPE}, stages=("lint", "equiv"), use_cache=False)
    cand = apply(Design(PIPE, "m"), next(iter(_opts(PIPE).values())))
    rep = evaluate(job, {"m.v": cand})
    assert rep.equiv_status == "proven", rep.equiv_status
    # soundness: the reference's x_q holds while c[0] is low, so one register loaded every cycle is wrong
    held = PIPE.replace("x_q <= a;", "if (c[0]) x_q <= a;")
    rep = evaluate(job.replace(ref={"ref.v": held}), {"m.v": cand})
    assert rep.failed_stage == "equiv" and rep.equiv_status == "counterexample"
    # and a wrong reset value (0 instead of 1 + 2) is seen on y one cycle after reset
    rep = evaluate(job, {"m.v": cand.replace("9'd3;", "9'd0;")})
    assert rep.failed_stage == "equiv" and rep.equiv_status == "counterexample"


ARRAY = """module m(input clk, input [7:0] a, input [7:0] b, input [7:0] c, output reg [7:0] y);
  reg [7:0] s [0:2];
  always @(posedge clk) begin
    s[0] <= a;
    s[1] <= b;
    s[2] <= c;
  end
  always @(posedge clk) y <= s[0] + s[1] + s[2];
endmodule
"""


def test_elements_of_a_register_array_and_the_pairs_a_move_makes():
    code = ARRAY
    opts = _opts(code)
    assert [o.label for o in opts.values()] == ["s[0] + s[1]: registered as one 8-bit result, 1 stage(s) back "
                                                "(8 flops fewer)", "every register pair read by one operation: 2 moves "
                                                "(16 flops fewer)"]
    out = _flat(apply(Design(code, "m"), opts[list(opts)[1]]))      # (s[0] + s[1]) + s[2] is a pair once moved
    assert "reg [7:0] s [0:2];" not in out and "always @(posedge clk) y <= s0_plus_s1_plus_s2;" in out
    assert "s0_plus_s1_plus_s2 <= (a + b) + c;" in out
    # an element read at a variable index keeps the whole array where it is
    assert _opts(code.replace("y <= s[0] + s[1] + s[2];", "y <= s[0] + s[1] + s[c[0]];")) == {}


@pytest.mark.requires("yosys")
def test_array_elements_moved_twice_are_proven():
    opts = _opts(ARRAY)
    job = FlowJob(top="m", ref={"ref.v": ARRAY}, stages=("lint", "equiv"), use_cache=False)
    rep = evaluate(job, {"m.v": apply(Design(ARRAY, "m"), opts[list(opts)[1]])})
    assert rep.equiv_status == "proven", rep.equiv_status


TWO = """module m(input clk, input rst, input [7:0] a, input [7:0] b, output reg [8:0] y);
  reg [7:0] x_q;
  reg [7:0] y_q;
  always @(posedge clk) if (rst) x_q <= 8'd0; else x_q <= a;
  always @(posedge clk)
    if (rst) y_q <= 8'd0;
    else y_q <= b;
  always @(posedge clk) y <= x_q + y_q;
endmodule
"""


def test_registers_of_two_blocks_alike_move_and_of_two_resets_do_not():
    two = TWO
    opts = _opts(two)
    out = _flat(apply(Design(two, "m"), next(iter(opts.values()))))
    assert "always @(posedge clk) if (rst) x_q_plus_y_q <= 9'd0; else x_q_plus_y_q <= a + b;" in out
    assert "y_q" not in out.replace("x_q_plus_y_q", "")                  # y_q's block, alone, went with it
    assert _opts(two.replace("if (rst) y_q <= 8'd0;", "if (!rst) y_q <= 8'd0;")) == {}


@pytest.mark.requires("yosys")
def test_a_move_out_of_two_blocks_is_proven():
    two = TWO
    job = FlowJob(top="m", ref={"ref.v": two}, stages=("lint", "equiv"), use_cache=False)
    rep = evaluate(job, {"m.v": apply(Design(two, "m"), next(iter(_opts(two).values())))})
    assert rep.equiv_status == "proven", rep.equiv_status
