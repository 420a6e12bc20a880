"""loop_tree: a reduction written as a for loop becomes a balanced tree; the flow proves the rewrite and measures
it better, and refutes a tree with the wrong tie rule or a dropped starting value. Real pyslang, Yosys, OpenSTA."""
import pytest

from eda.flow import FlowJob, evaluate
from rtl_agent.transforms import Design, options, apply

STAGES = ("screen", "lint", "equiv", "synth", "sta")

MAX8 = """module m(input [63:0] data, output reg [7:0] mx, output reg [2:0] idx);
    integer i;
    always @* begin
        mx = 8'd0;
        idx = 3'd0;
        for (i = 0; i < 8; i = i + 1)
            if (data[8*i +: 8] > mx) begin
                mx = data[8*i +: 8];
                idx = i;
            end
    end
endmodule
"""

# a shift-and-add with a second counter (the shift amount) and a starting value from an input
MAC = """module m(input [3:0] a, input [3:0] b, input [7:0] c, output reg [7:0] y);
    reg [2:0] sh;
    integer i;
    always @* begin
        y = c;
        sh = 0;
        for (i = 0; i < 4; i = i + 1) begin
            if (b[i]) y = y + (a << sh);
            sh = sh + 1;
        end
    end
endmodule
"""


def _opt(code):
    got = options(Design(code, "m"), kinds_=("loop_tree",))
    return got[0] if len(got) == 1 else None


def _judge(ref, cand):
    job = FlowJob(top="m", ref={"ref.v": ref}, stages=STAGES)
    return evaluate(job, {"m.v": cand}), evaluate(job.replace(ref={}, stages=("synth", "sta")), {"r.v": ref})


def test_sites_and_the_text_written():
    o = _opt(MAX8)
    assert o is not None and "8 steps, max into mx, idx" in o.label
    out = apply(Design(MAX8, "m"), o)
    assert "for (" not in out and out.count("lt6_pick(") == 9    # its declaration, 7 tree nodes, the starting value
    assert "(r[7:0] > l[7:0]) ? r : l" in out                          # strict: the earlier leaf wins a tie
    assert "{idx, mx} = lt6_pick({idx, mx}," in out
    mac = apply(Design(MAC, "m"), _opt(MAC))
    assert "y = y + (" in mac and "(a << 3'd3)" in mac and "sh = 3'd4;" in mac
    # not a reduction: the operand reads the accumulator; a non-blocking update; an else branch
    assert _opt(MAC.replace("y = y + (a << sh);", "y = y + (y >> 1);")) is None
    assert _opt(MAC.replace("y = y + (a << sh);", "y <= y + (a << sh);")) is None
    assert _opt(MAX8.replace("                idx = i;\n            end",
                             "                idx = i;\n            end else idx = 3'd1;")) is None


@pytest.mark.requires("yosys")
def test_max_tree_is_proven_better_and_a_wrong_tie_rule_is_refuted():
    cand = apply(Design(MAX8, "m"), _opt(MAX8))
    rep, base = _judge(MAX8, cand)
    assert rep.status == "pass" and rep.equiv_status == "proven", (rep.failed_stage, rep.failure_reason)
    assert base.ppa / rep.ppa > 2.0                                      # 7.6x measured on Nangate45
    wrong = cand.replace("(r[7:0] > l[7:0])", "(r[7:0] >= l[7:0])")    # ties go to the later index
    assert wrong != cand
    rep, _ = _judge(MAX8, wrong)
    assert rep.failed_stage == "equiv" and rep.equiv_status == "counterexample"


@pytest.mark.requires("yosys")
def test_sum_tree_is_proven_and_dropping_the_start_value_is_refuted():
    cand = apply(Design(MAC, "m"), _opt(MAC))
    rep, base = _judge(MAC, cand)
    assert rep.status == "pass" and rep.equiv_status == "proven", (rep.failed_stage, rep.failure_reason)
    assert base.ppa / rep.ppa > 1.3                                      # 1.95x measured
    wrong = cand.replace("y = y + (", "y = (")
    rep, _ = _judge(MAC, wrong)
    assert rep.failed_stage == "equiv" and rep.equiv_status == "counterexample"
