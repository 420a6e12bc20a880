"""signmag_add: a sign-magnitude add (the sum on one side, |A - B| by a compare and two subtracts on the other)
becomes one adder with a conditionally inverted operand; the flow proves it, and refutes the rewrite that reads
`>=` as `>` (wrong where the magnitudes are equal: the sign comes from the other branch). Real pyslang, Yosys,
the prover."""
import pytest

from eda.flow import FlowJob, evaluate
from rtl_agent.transforms import Design, apply, options

STAGES = ("screen", "lint", "equiv", "synth", "sta")

SM = """module m(input sa, input [6:0] ma, input sb, input [6:0] mb, output reg s, output reg [6:0] mag);
    always @* begin
        if (sa == sb) begin
            mag = ma + mb;
            s = sa;
        end else if (ma >= mb) begin
            mag = ma - mb;
            s = sa;
        end else begin
            mag = mb - ma;
            s = sb;
        end
    end
endmodule
"""


def _opts(code):
    return options(Design(code, "m"), kinds_=("signmag_add",))


def _judge(ref, cand):
    job = FlowJob(top="m", ref={"ref.v": ref}, stages=STAGES)
    return evaluate(job, {"m.v": cand}), evaluate(job.replace(ref={}, stages=("synth", "sta")), {"r.v": ref})


def test_sites_and_the_text_written():
    (o,) = _opts(SM)
    out = apply(Design(SM, "m"), o)
    name = f"sm{o.params['at']}"
    assert f"wire {name}_sub = !(sa == sb);" in out
    assert f"wire [7:0] {name}_s = {{1'd0, ma}} + ({{1'd0, mb}} ^ {{8{{{name}_sub}}}}) + {{7'd0, {name}_sub}};" in out
    assert out.count(f"mag = {name}_m;") == 3 and f"(~{name}_s[7])" in out and "ma >= mb" not in out
    # the subtractions the wrong way round are not a magnitude; an operand a blocking assignment writes is left
    assert _opts(SM.replace("mag = mb - ma;", "mag = ma - mb;")) == []
    assert _opts(SM.replace("input [6:0] ma,", "input [6:0] ma0,").replace("if (sa == sb) begin",
                                                                          "ma = ma0; if (sa == sb) begin")
                 .replace("output reg s,", "output reg s, output reg [6:0] ma,")) == []


@pytest.mark.requires("yosys")
def test_one_adder_is_proven_better_and_ge_read_as_gt_is_refuted():
    (o,) = _opts(SM)
    cand = apply(Design(SM, "m"), o)
    rep, base = _judge(SM, cand)
    assert rep.status == "pass" and rep.equiv_status == "proven", (rep.failed_stage, rep.failure_reason)
    assert base.area_um2 > rep.area_um2
    name = f"sm{o.params['at']}"
    wrong = cand.replace(f"(~{name}_s[7])", f"(~{name}_s[7] & (|{name}_s[6:0]))")
    assert wrong != cand
    rep, _ = _judge(SM, wrong)
    assert rep.failed_stage == "equiv" and rep.equiv_status == "counterexample"
