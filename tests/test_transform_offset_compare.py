"""offset_compare: `x == e - c` beside `x + c` compares one shared incrementer with e; the flow proves it and
refutes the rewrite that drops the incrementer's carry (wrong where x is all ones and e is 0). Real pyslang,
Yosys, the sequential prover."""
import pytest

from eda.flow import FlowJob, evaluate
from rtl_agent.transforms import Design, apply, options

STAGES = ("screen", "lint", "equiv", "synth", "sta")

# a divider by a programmable period: the terminal count is `period - 1` at 32 bits (the unsized 1)
DIV = """module m(input clk, input rst, input [2:0] period, output reg tick, output reg [2:0] cnt);
    always @(posedge clk)
        if (rst) begin cnt <= 3'd0; tick <= 1'b0; end
        else if (cnt == period - 1) begin cnt <= 3'd0; tick <= ~tick; end
        else cnt <= cnt + 1;
endmodule
"""


def _opts(code):
    return options(Design(code, "m"), kinds_=("offset_compare",))


def _judge(ref, cand):
    job = FlowJob(top="m", ref={"ref.v": ref}, stages=STAGES, clock="clk")
    return evaluate(job, {"m.v": cand})


def test_sites_and_the_text_written():
    (o,) = _opts(DIV)
    assert o.params == {"x": "cnt", "c": 1}
    out = apply(Design(DIV, "m"), o)
    assert "wire [3:0] cnt_inc = cnt + 4'd1;" in out and "(cnt_inc == period)" in out
    assert "cnt <= cnt_inc;" in out and "period - 1" not in out
    # at the register's own width the compare wraps with the sum: it reads the incrementer's low bits
    sized = DIV.replace("period - 1)", "period - 3'd1)")
    assert "(cnt_inc[2:0] == period)" in apply(Design(sized, "m"), _opts(sized)[0])
    # no increment to share, or a blocking-assigned counter (its value depends on where it is read): no site
    assert _opts(DIV.replace("cnt <= cnt + 1;", "cnt <= cnt - 1;")) == []
    comb = DIV.replace("cnt <= cnt + 1;", "begin cnt = cnt + 1; end")
    assert _opts(comb) == []


@pytest.mark.requires("yosys")
def test_the_shared_incrementer_is_proven_and_dropping_its_carry_is_refuted():
    cand = apply(Design(DIV, "m"), _opts(DIV)[0])
    rep = _judge(DIV, cand)
    assert rep.status == "pass" and rep.equiv_status == "proven", (rep.failed_stage, rep.failure_reason)
    wrong = cand.replace("(cnt_inc == period)", "(cnt_inc[2:0] == period)")
    assert wrong != cand
    rep = _judge(DIV, wrong)
    assert rep.failed_stage == "equiv" and rep.equiv_status == "counterexample"
