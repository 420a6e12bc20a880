"""bound_compare: a compare of a counter with its largest value tests only the bits set in it; the flow proves
the rewrite of two cascaded counters (a minutes:seconds-like clock) and refutes it on a counter that runs past
the value it is compared with. Real pyslang, Yosys, the sequential prover."""
import pytest

from eda.flow import FlowJob, evaluate
from eda.ranges import Range
from rtl_agent.transforms import Design, apply, options

STAGES = ("screen", "lint", "equiv", "synth", "sta")

CLOCK = """module m(input clk, input rst, output reg [3:0] lo, output reg [2:0] hi);
    always @(posedge clk)
        if (rst) lo <= 4'd0;
        else if (lo == 4'd9) lo <= 4'd0;
        else lo <= lo + 1'b1;
    always @(posedge clk)
        if (rst) hi <= 3'd0;
        else if (lo == 9) begin
            if (hi == 3'd5) hi <= 3'd0;
            else hi <= hi + 1'b1;
        end
endmodule
"""

# compared with 9 but counting on to 15: 11 has the bits of 9 set too
FREE = """module m(input clk, input rst, output reg [3:0] x, output nine);
    assign nine = (x == 4'd9);
    always @(posedge clk)
        if (rst) x <= 4'd0;
        else x <= x + 1'b1;
endmodule
"""


def _opts(code, ranges=None):
    return options(Design(code, "m", ranges=ranges or {}), kinds_=("bound_compare",))


def _judge(ref, cand):
    job = FlowJob(top="m", ref={"ref.v": ref}, stages=STAGES, clock="clk")
    return evaluate(job, {"m.v": cand})


def test_sites_and_the_text_written():
    opts = _opts(CLOCK)
    assert [o.params["regs"] for o in opts] == [["lo"], ["hi"], ["lo", "hi"]]
    out = apply(Design(CLOCK, "m"), opts[2])
    assert out.count("(&{lo[3], lo[0]})") == 2 and "(&{hi[2], hi[0]})" in out and "== 9" not in out
    assert "lo == 4'd9" not in out and "hi == 3'd5" not in out
    # an assignment the structure cannot bound (a load from an input) or a testbench that saw a larger value
    # takes the register off the menu
    loaded = CLOCK.replace("input rst,", "input rst, input [3:0] d,").replace("lo <= 4'd0;\n        else if",
                                                                            "lo <= d;\n        else if")
    assert [o.params["regs"] for o in _opts(loaded)] == [["hi"]]
    seen = {"lo": Range(width=4, lo=0, hi=12, ones=15, values=13, changes=13)}
    assert [o.params["regs"] for o in _opts(CLOCK, seen)] == [["hi"]]


@pytest.mark.requires("yosys")
def test_a_bounded_counter_is_proven_and_one_running_past_the_value_is_refuted():
    rep = _judge(CLOCK, apply(Design(CLOCK, "m"), _opts(CLOCK)[2]))
    assert rep.status == "pass" and rep.equiv_status == "proven", (rep.failed_stage, rep.failure_reason)
    (o,) = _opts(FREE)                      # the structure looks like a counter: offered, and the proof decides
    cand = apply(Design(FREE, "m"), o)
    assert "(&{x[3], x[0]})" in cand
    rep = _judge(FREE, cand)
    assert rep.failed_stage == "equiv" and rep.equiv_status == "counterexample"
