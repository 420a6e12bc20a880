"""The transformation library (rtl_agent/transforms): each kind finds its sites, writes a design the flow proves
and measures better, and, where the rewrite would be wrong, either offers nothing or is rejected by the flow.
Real tools (pyslang, Icarus, Yosys, OpenSTA), no model."""
from pathlib import Path

import pytest

from eda.flow import FlowJob, evaluate
from eda.ranges import Range
from rtl_agent import transforms as T
from rtl_agent.transforms.syntax import parse, splice

ROOT = Path(__file__).resolve().parent.parent
STAGES = ("screen", "lint", "equiv", "synth", "sta")


def judge(ref: str, top: str, cand: str, clock=None):
    job = FlowJob(top=top, ref={"ref.v": ref}, stages=STAGES, clock=clock or None)
    return evaluate(job, {f"{top}.v": cand}), evaluate(job.replace(ref={}, stages=("synth", "sta")), {"r.v": ref})


def proven_better(ref, top, cand, clock=None):
    rep, base = judge(ref, top, cand, clock)
    assert rep.status == "pass" and rep.equiv_status == "proven", (rep.failed_stage, rep.failure_reason)
    return base.ppa / rep.ppa


def rejected(ref, top, cand, clock=None):
    rep, _ = judge(ref, top, cand, clock)
    return rep.failed_stage in ("equiv", "interface") and not rep.ok


def test_parse_errors_and_edits_keep_the_rest():
    with pytest.raises(T.ParseError, match="expected"):
        parse("module x(; endmodule", "x")
    with pytest.raises(T.ParseError, match="not in the design"):
        parse("module y; endmodule", "x")
    code = "module m(input a, output y); // keep me\n  assign y = a;\nendmodule\n"
    i = code.index("a;")
    assert splice(code, [(i, i + 1, "~a")]) == code.replace("= a;", "= ~a;")
    assert T.options(T.Design("module x(; endmodule", "x"), log=lambda k, r: None) == []


POP = """// popcount of 16 bits
module pc (input [15:0] x, output reg [4:0] n);
  integer i;
  always @* begin
    n = 5'd0;
    for (i = 0; i < 16; i = i + 1)
      if (x[i]) n = n + 5'd1;   // count the ones
  end
endmodule
"""


def test_cond_arith_turns_a_conditional_increment_into_arithmetic():
    d = T.Design(POP, "pc")
    (o,) = T.options(d, ["cond_arith"])
    new = T.apply(d, o)
    assert "n = n + x[i];" in new and "// popcount of 16 bits" in new and "if (x[i])" not in new
    assert proven_better(POP, "pc", new) > 1.3


def test_cond_arith_leaves_an_update_with_an_else_alone_and_the_flow_rejects_dropping_it():
    ref = POP.replace("if (x[i]) n = n + 5'd1;", "if (x[i]) n = n + 5'd1; else n = 5'd0;")
    assert T.options(T.Design(ref, "pc"), ["cond_arith"]) == []
    wrong = ref.replace("if (x[i]) n = n + 5'd1; else n = 5'd0;", "n = n + x[i];")
    assert rejected(ref, "pc", wrong)


MAC = """module mac (input clk, input [7:0] a, b, output reg [15:0] p, output reg [19:0] acc);
  always @(posedge clk) begin
    p <= a * b;
    acc <= acc + a * b;
  end
endmodule
"""


def test_share_computes_a_repeated_product_once():
    d = T.Design(MAC, "mac")
    (o,) = T.options(d, ["share"])
    new = T.apply(d, o)
    assert new.count("a * b") == 1 and "wire [15:0] shared = a * b;" in new
    assert proven_better(MAC, "mac", new, clock="clk") > 1.1


def test_share_does_not_merge_differences_of_different_widths():
    ref = """module d (input [7:0] a, b, output [7:0] x, output [8:0] y);
  assign x = a - b;
  assign y = a - b;
endmodule
"""
    assert T.options(T.Design(ref, "d"), ["share"]) == []      # a - b wraps at 8 bits in one, 9 in the other
    wrong = ref.replace("  assign x = a - b;\n  assign y = a - b;",
                        "  wire [7:0] s = a - b;\n  assign x = s;\n  assign y = s;")
    assert rejected(ref, "d", wrong)


ARRAY = """module m4 (input [3:0] a, b, output [7:0] p);
  wire [7:0] p0 = b[0] ? {4'd0, a} : 8'd0;
  wire [7:0] p1 = b[1] ? {3'd0, a, 1'b0} : 8'd0;
  wire [7:0] p2 = b[2] ? {2'd0, a, 2'b0} : 8'd0;
  wire [7:0] p3 = b[3] ? {1'd0, a, 3'b0} : 8'd0;
  assign p = p0 + p1 + p2 + p3;
endmodule
"""


def test_recognise_finds_the_multiplier_a_shift_and_add_array_computes():
    d = T.Design(ARRAY, "m4")
    labels = [o.label for o in T.options(d, ["recognise"])]
    assert "replace the module body by p = a * b" in labels and not any("a + b" in x for x in labels)
    o = next(o for o in T.options(d, ["recognise"]) if o.label.endswith("a * b"))
    new = T.apply(d, o)
    assert "assign p = a * b;" in new
    rep, _ = judge(ARRAY, "m4", new)
    assert rep.ok and rep.equiv_status == "proven"


def test_recognise_screen_drops_a_form_the_design_does_not_compute_and_the_flow_rejects_it():
    sat = """module sat (input [7:0] a, b, output [7:0] y);
  wire [8:0] s = a + b;
  assign y = s[8] ? 8'hff : s[7:0];     // saturating add: not a + b
endmodule
"""
    labels = [o.label for o in T.options(T.Design(sat, "sat"), ["recognise"])]
    assert not any("a + b" in x for x in labels)
    wrong = T.apply(T.Design(sat, "sat"), T.Option("recognise", "y", {"lhs": "y", "expr": "a + b"}, "forced"))
    assert rejected(sat, "sat", wrong)


COUNT = """module c (input clk, input rst, input en, output done);
  reg [15:0] cnt;   // counts 0..9
  assign done = (cnt == 16'd9);
  always @(posedge clk)
    if (rst) cnt <= 16'd0;
    else if (en) cnt <= done ? 16'd0 : cnt + 16'd1;
endmodule
"""


def test_narrow_offers_widths_from_the_ranges_and_the_flow_rejects_one_that_overflows():
    rng = {"cnt": Range(width=16, lo=0, hi=9, ones=15, values=10, changes=20)}
    d = T.Design(COUNT, "c", ranges=rng)
    opts = T.options(d, ["narrow"])
    assert [o.params["width"] for o in opts] == [4, 5]        # tight, one spare bit (4 is the power of two)
    new = T.apply(d, opts[0])
    assert "reg [3:0] cnt;   // counts 0..9" in new
    assert proven_better(COUNT, "c", new, clock="clk") > 1.5
    # a probe that saw less than the design reaches (0..2 only) proposes 2 bits: cnt == 9 can never hold
    low = T.Design(COUNT, "c", ranges={"cnt": Range(width=16, lo=0, hi=2, ones=3, values=3, changes=5)})
    two = T.apply(low, T.options(low, ["narrow"])[0])
    assert "reg [1:0] cnt;" in two and rejected(COUNT, "c", two, clock="clk")


def test_every_registered_kind_has_a_summary_and_a_unique_name():
    names = T.kinds()
    assert len(names) == len(set(names)) >= 4
    assert all(T.REGISTRY[n].summary for n in names)


def test_share_leaves_loop_indices_and_constants_alone():
    code = """module l #(parameter W = 4) (input clk, input [7:0] d, output reg [7:0] q0, output reg [7:0] q1,
                                     output [W*2-1:0] z);
  reg [7:0] r [0:7];
  integer i;
  assign z = {W*2{1'b0}};
  always @(posedge clk) begin
    for (i = 0; i < 8; i = i + 1) r[i] <= d;
    for (i = 0; i < 8; i = i + 1) q0 <= r[i] + 8'd1;
    q1 <= {W*2{1'b1}};
  end
endmodule
"""
    assert T.options(T.Design(code, "l"), ["share"]) == []
