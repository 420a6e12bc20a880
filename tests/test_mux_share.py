"""Kind `mux_share` (one unit for exclusive arms, operands selected first): real parser, real flow (Yosys
equivalence, synthesis, STA). The rewrite is proven and smaller; a wrong operand select is refuted."""
import re

from eda.flow import FlowJob, evaluate
from rtl_agent import transforms as T
import rtl_agent.transforms.mux_share  # noqa: F401 - registers the kind

# four arithmetic arms and two right shifts under one case; signed and unsigned forms mixed
ALU = """// a small ALU, one operator per arm
module alu4 (
    input  [7:0] a, input [7:0] b, input [7:0] c,
    input  [2:0] op,
    output reg [8:0] y
);
    always @(a or b or c or op) begin
        case (op)
            3'd0: y = a + b;
            3'd1: y = a - b;                 // borrow in bit 8
            3'd2: y = $signed(a) + $signed(c);
            3'd3: y = {1'b0, c - a};
            3'd4: y = b >> a[2:0];
            3'd5: y = $signed(b) >>> a[2:0];
            3'd6: y = c << b[1:0];
            default: y = a & b;
        endcase
    end
endmodule
"""

# both sums are needed at once: not exclusive, nothing to share
BOTH = """module both (
    input [7:0] a, input [7:0] b, input [7:0] c, input [7:0] d, input s,
    output reg [7:0] y, output reg [7:0] z
);
    always @* begin
        if (s) begin y = a + b; z = c + d; end
        else   begin y = a + d; z = 8'd0; end
    end
endmodule
"""

# the arms of a ?: chain in a continuous assignment
TERN = """module tern (
    input [11:0] a, input [11:0] b, input [11:0] c, input [1:0] s,
    output [11:0] y
);
    assign y = (s == 2'd0) ? a + b : (s == 2'd1) ? a + c : (s == 2'd2) ? b - c : a;
endmodule
"""


def _job(top, ref):
    return FlowJob(top=top, stages=("equiv", "synth", "sta"), clock=None, ref={f"{top}_ref.v": ref})


def _ref(top, code):
    return evaluate(_job(top, code).replace(ref={}, stages=("synth", "sta")), {f"{top}.v": code})


def test_exclusive_arms_share_one_unit_proven_and_smaller_and_a_wrong_select_is_refuted():
    d = T.Design(ALU, "alu4")
    opts = {o.params.get("family", "all"): o for o in T.options(d, ["mux_share"])}
    assert {"addsub", "shr", "shift", "all"} <= set(opts), list(opts)
    new = T.apply(d, opts["all"])
    assert "// a small ALU, one operator per arm" in new and "// borrow in bit 8" in new
    # one adder (x + (y ^ m) + m) and one shifter (the left shift by bit reversal)
    assert len(re.findall(r"assign \w+ = ", new)) == 2 and new.count(">>>") == 1 and "<<" not in new
    assert not any(f"y = {e};" in new for e in ("a + b", "a - b", "b >> a[2:0]"))
    assert "@*" in new                                             # the event list wakes on the shared result
    rep = evaluate(_job("alu4", ALU), {"alu4.v": new})
    assert rep.equiv_status == "proven", rep.failure_reason
    assert rep.area_um2 < _ref("alu4", ALU).area_um2
    # the same rewrite with one arm's operands swapped (c - a computed as a - c) is refuted by the same prover
    wrong = re.sub(r"(addsub_x) = \$unsigned\(c\);\n(\s+)(addsub_y) = \$unsigned\(a\);",
                   r"\1 = $unsigned(a);\n\2\3 = $unsigned(c);", new)
    assert wrong != new
    bad = evaluate(_job("alu4", ALU), {"alu4.v": wrong})
    assert bad.equiv_status != "proven" and not bad.ok


def test_arms_computed_together_are_not_shared():
    d = T.Design(BOTH, "both")
    for o in T.options(d, ["mux_share"]):
        # only the exclusive pair (y's two sums) may share; z's sum runs beside y's and keeps its adder
        new = T.apply(d, o)
        assert "c + d" in new
        assert evaluate(_job("both", BOTH), {"both.v": new}).equiv_status == "proven"


def test_a_conditional_chain_shares_one_adder():
    d = T.Design(TERN, "tern")
    opts = {o.params.get("family", "all"): o for o in T.options(d, ["mux_share"])}
    assert "add" in opts and "addsub" in opts, list(opts)
    new = T.apply(d, opts["add"])
    assert "a + b" not in new and "a + c" not in new and "b - c" in new
    rep = evaluate(_job("tern", TERN), {"tern.v": new})
    assert rep.equiv_status == "proven", rep.failure_reason
    assert rep.area_um2 < _ref("tern", TERN).area_um2


# a clocked block: the arms read the register itself; the operand select is a combinational copy of the branches
SEQ = """module seqalu (input clk, input rst, input [7:0] a, input [7:0] b, input [1:0] op, output reg [7:0] q);
    always @(posedge clk or posedge rst) begin
        if (rst) q <= 8'd0;
        else case (op)
            2'd0: q <= a + b;
            2'd1: q <= q - a;
            2'd2: q <= q + b;
            default: q <= q;
        endcase
    end
endmodule
"""


def test_a_clocked_block_shares_one_adder_subtractor_proven_sequentially():
    d = T.Design(SEQ, "seqalu")
    opts = {o.params.get("family", "all"): o for o in T.options(d, ["mux_share"])}
    new = T.apply(d, opts["addsub"])
    assert "q - a" not in new and "q + b" not in new and "@(posedge clk or posedge rst)" in new
    job = FlowJob(top="seqalu", stages=("equiv", "synth", "sta"), clock="clk", ref={"seqalu_ref.v": SEQ})
    rep = evaluate(job, {"seqalu.v": new})
    assert rep.equiv_status == "proven", rep.failure_reason
    assert rep.area_um2 < evaluate(job.replace(ref={}, stages=("synth", "sta")), {"seqalu.v": SEQ}).area_um2
