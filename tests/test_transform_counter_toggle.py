"""counter_toggle: a counter's +1/-1 (wrap compares, up/down) becomes a toggle counter; the flow proves it and
measures it better, and refutes a toggle network counting the wrong way. Real pyslang, Yosys, OpenSTA."""
import pytest

from eda.flow import FlowJob, evaluate
from eda.ranges import Range
from rtl_agent.transforms import Design, options, apply

STAGES = ("screen", "lint", "equiv", "synth", "sta")

UPDOWN = """module m(input clk, input reset, input up, output reg [15:0] q);
    always @(posedge clk or posedge reset)
        if (reset) q <= 16'd0;
        else if (up) begin
            if (q == 16'hFFFF) q <= 16'd0;
            else q <= q + 1;
        end else begin
            if (q == 16'd0) q <= 16'hFFFF;
            else q <= q - 1'b1;
        end
endmodule
"""


def _opts(code):
    return options(Design(code, "m"), kinds_=("counter_toggle",))


def _judge(ref, cand):
    job = FlowJob(top="m", ref={"ref.v": ref}, stages=STAGES, clock="clk")
    return evaluate(job, {"m.v": cand}), evaluate(job.replace(ref={}, stages=("synth", "sta")), {"r.v": ref})


def test_sites_and_the_text_written():
    (o,) = _opts(UPDOWN)
    assert "up/down count of q" in o.label
    out = apply(Design(UPDOWN, "m"), o)
    assert "q <= q ^ ct4_q;" in out and "~(q ^ {16{up}})" in out and "&ct4_q_e[14:0]" in out
    assert "q + 1" not in out and "16'hFFFF" not in out
    flipped = UPDOWN.replace("else if (up) begin", "else if (!up) begin")
    assert "16{!up}" in apply(Design(flipped, "m"), _opts(flipped)[0])
    down_first = UPDOWN.replace("q <= q + 1;", "q <= q - 1'b1;#").replace("q <= q - 1'b1;\n", "q <= q + 1;\n") \
        .replace("#", "")
    # swapping the counts without the edges is not a wrap-around any more: each count is a site on its own
    assert all("up/down" not in x.label for x in _opts(down_first))
    # a compare against a value that is not the wrap edge is a real decision: only the bare counts are sites
    mod12 = UPDOWN.replace("q == 16'hFFFF", "q == 16'd11")
    assert [x.label.split(" at ")[0] for x in _opts(mod12)] == ["the increment of q",
                                                                "the decrement of q"]


@pytest.mark.requires("yosys")
def test_toggle_counter_is_proven_better_and_the_wrong_direction_is_refuted():
    cand = apply(Design(UPDOWN, "m"), _opts(UPDOWN)[0])
    rep, base = _judge(UPDOWN, cand)
    assert rep.status == "pass" and rep.equiv_status == "proven", (rep.failed_stage, rep.failure_reason)
    assert base.ppa / rep.ppa > 1.15                                     # 1.35x measured on Nangate45
    wrong = cand.replace("~(q ^ {16{up}})", "(q ^ {16{up}})")
    assert wrong != cand
    rep, _ = _judge(UPDOWN, wrong)
    assert rep.failed_stage == "equiv" and rep.equiv_status == "counterexample"


# a count to 11 and back (RTLLM counter_12's form): its toggles use that 12..15 never occur, its enable folded in
MOD12 = """module m(input clk, input rst_n, input v, output reg [3:0] out);
    always @(posedge clk or negedge rst_n)
        if (!rst_n) out <= 4'd0;
        else if (v) begin
            if (out == 4'd11) out <= 4'd0;
            else out <= out + 1;
        end else out <= out;
endmodule
"""


@pytest.mark.requires("yosys")
def test_a_mod_counter_uses_its_unreachable_values_and_a_reachable_one_is_refuted():
    opts = _opts(MOD12)
    assert [o.params.get("merged", False) for o in opts] == [False, True]
    assert "count to 11 and back to 0" in opts[0].label and "enable folded" in opts[1].label
    seen_above = Range(width=4, lo=0, hi=13, ones=15, values=14, changes=40)    # the testbench saw 13: no option
    assert options(Design(MOD12, "m", ranges={"out": seen_above}), kinds_=("counter_toggle",)) == []
    cand = apply(Design(MOD12, "m"), opts[1])
    assert "out <= out ^ ({4{v}} & ct5_out);" in cand and "~out[3] & out[1] & out[0]" in cand
    job = FlowJob(top="m", ref={"ref.v": MOD12}, stages=STAGES, clock="clk")
    rep, base = evaluate(job, {"m.v": cand}), evaluate(job.replace(ref={}, stages=("synth", "sta")), {"r.v": MOD12})
    assert rep.status == "pass" and rep.equiv_status == "proven", (rep.failed_stage, rep.failure_reason)
    assert base.ppa / rep.ppa > 1.1                                      # 1.25x measured on Nangate45
    # reset to 13: values above 11 do occur, the don't-cares are wrong, and the prover finds the difference
    bad = MOD12.replace("out <= 4'd0;\n        else if", "out <= 4'd13;\n        else if")
    wrong = apply(Design(bad, "m"), _opts(bad)[1])
    rep = evaluate(job.replace(ref={"ref.v": bad}), {"m.v": wrong})
    assert rep.failed_stage == "equiv" and rep.equiv_status == "counterexample"
