"""idle: the options a clocked register gets, the text they write, and the flow deciding: a dropped reset that
no output observes is proven, one an output sees is rejected (real Yosys/ABC proofs)."""
import pytest

from eda.flow import FlowJob, evaluate
from eda.observe import Observe
from rtl_agent.transforms import Design, TransformError, apply, options

# d is loaded on `start` and reaches y only while v (reset to 0, one cycle after start) is high
GATED = """module m(input clk, input rst_n, input start, input [3:0] din, output [3:0] y);
  reg [3:0] d;
  reg v;
  always @(posedge clk or negedge rst_n) begin
    if (!rst_n) begin
      d <= 4'd0;
      v <= 1'b0;
    end else begin
      v <= start;
      if (start) d <= din;
    end
  end
  assign y = v ? d : 4'd0;
endmodule
"""


def _flat(text):
    return " ".join(text.split())


def _opts(code):
    return {o.label: o for o in options(Design(code, "m"), kinds_=("idle",))}


def test_options_and_the_sliced_blocks():
    opts = _opts(GATED)
    assert set(opts) == {"d: no reset", "d: no hold", "d: no reset no hold", "v: no reset"}
    out = _flat(apply(Design(GATED, "m"), opts["d: no reset no hold"]))
    assert "always @(posedge clk) begin d <= din; end" in out              # own block, clock edge only
    assert "if (!rst_n) begin v <= 1'b0; end else begin v <= start; end" in out   # v keeps its reset
    assert out.count("d <=") == 1
    hold = _flat(apply(Design(GATED, "m"), opts["d: no hold"]))
    assert "always @(posedge clk or negedge rst_n) if (!rst_n) begin d <= 4'd0; end else begin d <= din; end" in hold
    gate = GATED.replace("if (start) d <= din;", "d <= start ? din : 4'd0;")
    assert "d: no gate" in _opts(gate)
    assert "d <= din;" in apply(Design(gate, "m"), _opts(gate)["d: no reset no gate"])
    blocking = GATED.replace("v <= start;", "v = start;")
    dead = GATED.replace("  assign y", "  reg [3:0] z;\n  always @(posedge clk) if (start) z <= din;\n  assign y")
    assert set(_opts(dead)) == set(opts)                                  # z reaches no output: no options
    assert "z: no hold" in _opts(dead.replace("assign y = v ? d : 4'd0;", "assign y = v ? d : z;"))
    assert _opts(blocking) == {}                                          # left alone, not half-sliced
    with pytest.raises(TransformError):
        apply(Design(GATED, "m"), opts["v: no reset"].__class__("idle", "nope", {"mode": "no_reset"}, "x"))


@pytest.mark.requires("yosys")
def test_unobservable_reset_is_proven_and_an_observable_one_rejected():
    job = FlowJob(top="m", ref={"ref.v": GATED}, stages=("lint", "equiv"), use_cache=False)
    opts = _opts(GATED)
    for label in ("d: no reset", "d: no reset no hold"):
        rep = evaluate(job, {"m.v": apply(Design(GATED, "m"), opts[label])})
        assert rep.equiv_status == "proven", (label, rep.equiv_status)
    # soundness: the same register, but the output reads it directly: its reset value is seen after reset
    seen = GATED.replace("assign y = v ? d : 4'd0;", "assign y = d;")
    rep = evaluate(job.replace(ref={"ref.v": seen}), {"m.v": apply(Design(seen, "m"), _opts(seen)["d: no reset"])})
    assert rep.failed_stage == "equiv" and rep.equiv_status == "counterexample"


@pytest.mark.requires("yosys")
def test_a_dont_care_rule_makes_a_dropped_hold_provable():
    seen = GATED.replace("assign y = v ? d : 4'd0;", "assign y = d;\n  assign vo = v;").replace(
        "output [3:0] y);", "output [3:0] y, output vo);")
    cand = apply(Design(seen, "m"), _opts(seen)["d: no reset no hold"])
    strict = FlowJob(top="m", ref={"ref.v": seen}, stages=("lint", "equiv"), use_cache=False)
    assert evaluate(strict, {"m.v": cand}).equiv_status == "counterexample"
    rule = Observe(when={"y": "vo"}, cite="y is valid only while vo is high")
    rep = evaluate(strict.replace(observe=rule), {"m.v": cand})
    assert rep.equiv_status == "proven"
