"""invert_reg: a one-bit register read inverted is stored inverted (updates and reset value flipped, reads
rewritten); the flow proves the rewrite, and the same rewrite with the reset value left unflipped is refuted
(real Yosys/ABC proofs)."""
import pytest

from eda.flow import FlowJob, evaluate
from rtl_agent.transforms import Design, TransformError, apply, options

# p holds the last sample of a; the edge outputs read it inverted, t toggles and is read plain
EDGE = """module m(input clk, input rst_n, input a, output reg rise, output reg fall, output y);
  reg p, t;
  always @(posedge clk or negedge rst_n) begin
    if (!rst_n) begin
      p <= 1'b0;
      t <= 1'b0;
      rise <= 1'b0;
      fall <= 1'b0;
    end else begin
      p <= a;
      t <= ~t;
      rise <= a & ~p;
      fall <= ~a & p;
    end
  end
  assign y = t ^ p;
endmodule
"""


def _opts(code):
    return {o.label: o for o in options(Design(code, "m"), kinds_=("invert_reg",))}


def test_options_and_the_text():
    opts = _opts(EDGE)
    assert set(opts) == {"p: store it inverted (its inverted uses read the flip-flop directly)",
                         "t: store it inverted (its inverted uses read the flip-flop directly)"}
    out = " ".join(apply(Design(EDGE, "m"), opts[next(k for k in opts if k.startswith("p:"))]).split())
    assert "p <= 1'b1;" in out and "p <= ~a;" in out                       # reset and update flipped
    assert "rise <= a & p;" in out and "fall <= ~a & !p;" in out and "assign y = t ^ !p;" in out
    tog = " ".join(apply(Design(EDGE, "m"), opts[next(k for k in opts if k.startswith("t:"))]).split())
    assert "t <= ~(t);" in tog and "t <= 1'b1;" in tog      # s = ~t: s <= ~s, read as ~(~t) -> ~(t)
    # outputs, selects and registers nothing reads inverted get no option
    assert _opts(EDGE.replace("~p", "p").replace("~t", "t")) == {}
    assert "p" not in {k[0] for k in _opts(EDGE.replace("assign y = t ^ p;", "assign y = t ^ p[0];"))}
    with pytest.raises(TransformError):
        apply(Design(EDGE, "m"), opts[next(iter(opts))].__class__("invert_reg", "rise", {}, "x"))


@pytest.mark.requires("yosys")
def test_the_rewrite_is_proven_and_a_wrong_reset_refuted():
    job = FlowJob(top="m", ref={"ref.v": EDGE}, stages=("lint", "equiv"), use_cache=False)
    label = next(k for k in _opts(EDGE) if k.startswith("p:"))
    good = apply(Design(EDGE, "m"), _opts(EDGE)[label])
    assert evaluate(job, {"m.v": good}).equiv_status == "proven"
    # soundness: the stored value inverted but its reset value not: the first cycle after reset tells
    bad = good.replace("p <= 1'b1;", "p <= 1'b0;")
    rep = evaluate(job, {"m.v": bad})
    assert rep.failed_stage == "equiv" and rep.equiv_status == "counterexample"
