"""mem_clear: a memory's constant word writes (a reset loop, a clear after a pop) are the options; the flow decides:
in a stack whose words are always pushed before they are popped the clears are proven unobservable, and with a
port that shows a word directly the same rewrite is refuted (real Yosys/ABC proofs)."""
import pytest

from eda.flow import FlowJob, evaluate
from rtl_agent.transforms import Design, TransformError, apply, options

# a two-word stack: n counts the words held; a word is read only after a push wrote it. Blocking, as RTLLM's
# LIFObuffer: Yosys then keeps the words as flip-flops (a nonblocking clear loop's constant 32-bit addresses
# would make the memory look too deep for a formal model)
STACK = """module m(input clk, input rst, input push, input pop, input [1:0] din, output reg [1:0] dout);
  reg [1:0] mem [0:1];
  reg [1:0] n;
  integer i;
  always @(posedge clk) begin
    if (rst) begin
      n = 2'd0;
      dout = 2'd0;
      for (i = 0; i < 2; i = i + 1) begin
        mem[i] = 2'd0;
      end
    end else if (push && n != 2'd2) begin
      mem[n[0]] = din;
      n = n + 2'd1;
    end else if (pop && n != 2'd0) begin
      dout = mem[n[0] - 1'b1];
      mem[n[0] - 1'b1] = 2'd0;
      n = n - 2'd1;
    end
  end
endmodule
"""


def _opts(code):
    return {o.label: o for o in options(Design(code, "m"), kinds_=("mem_clear",))}


def test_options_and_the_text():
    opts = _opts(STACK)
    assert set(opts) == {"mem: drop its 2 clears", "mem: drop its clear at line 9", "mem: drop its clear at line 17"}
    both = apply(Design(STACK, "m"), opts["mem: drop its 2 clears"])
    assert "for (i" not in both and "= 2'd0;\n      n = n - 2'd1" not in both
    assert both.count("mem[") == 2 and "mem[n[0]] = din;" in both          # the push and the read stay
    one = apply(Design(STACK, "m"), opts["mem: drop its clear at line 17"])
    assert "for (i" in one and "mem[n[0] - 1'b1] = 2'd0;" not in one
    # an `if` whose only statement is a clear keeps a statement; a ROM's initial contents are no clears
    bare = STACK.replace("      mem[n[0] - 1'b1] = 2'd0;\n", "").replace(
        "n = n - 2'd1;\n    end", "n = n - 2'd1;\n    end else if (pop) mem[0] = 2'd0;")
    out = apply(Design(bare, "m"), _opts(bare)["mem: drop its clear at line 18"])
    assert "else if (pop) ;" in out
    rom = "module m(input [0:0] a, output [1:0] y);\n  reg [1:0] r [0:1];\n  initial begin r[0] = 2'd1; " \
          "r[1] = 2'd2; end\n  assign y = r[a];\nendmodule\n"
    assert _opts(rom) == {}
    with pytest.raises(TransformError):
        apply(Design(STACK, "m"), opts["mem: drop its clear at line 9"].__class__("mem_clear", "nope", {}, "x"))


@pytest.mark.requires("yosys")
def test_unobservable_clears_are_proven_and_an_observable_one_refuted():
    job = FlowJob(top="m", ref={"ref.v": STACK}, stages=("lint", "equiv"), use_cache=False)
    rep = evaluate(job, {"m.v": apply(Design(STACK, "m"), _opts(STACK)["mem: drop its 2 clears"])})
    assert rep.equiv_status == "proven", rep.equiv_status
    # soundness: a second output shows word 0 directly, so its reset value and its clear after a pop are seen
    seen = STACK.replace("output reg [1:0] dout);", "output reg [1:0] dout, output [1:0] w0);").replace(
        "endmodule", "  assign w0 = mem[0];\nendmodule")
    rep = evaluate(job.replace(ref={"ref.v": seen}),
                   {"m.v": apply(Design(seen, "m"), _opts(seen)["mem: drop its clear at line 9"])})
    assert rep.failed_stage == "equiv" and rep.equiv_status == "counterexample"
