"""decode_delay: one-hot flags of a register's previous value become one copy of the register, decoded; checked
by the real flow (Yosys export and simulation, the equivalence stage)."""
from eda.flow import FlowJob, evaluate
from eda.report import is_proven
from rtl_agent.transforms import Design, apply, options
from rtl_agent.transforms import decode_delay

# a 2-bit mode register stepped by `go`, and one flag per mode telling which mode the previous cycle had,
# written as constants per arm of a case on the mode (4 flip-flops where a 2-bit copy would do; reset as if the
# previous mode were 0)
PREV = """module prev(input clk, input rst, input go, input [1:0] jump, output [1:0] m, output busy, output was0);
    reg [1:0] mode;
    reg f0, f1, f2, f3;
    always @(posedge clk)
        if (rst) begin mode <= 0; f0 <= 1; f1 <= 0; f2 <= 0; f3 <= 0; end
        else begin
            case (mode)
                2'd0: begin f0 <= 1; f1 <= 0; f2 <= 0; f3 <= 0; end
                2'd1: begin f0 <= 0; f1 <= 1; f2 <= 0; f3 <= 0; end
                2'd2: begin f0 <= 0; f1 <= 0; f2 <= 1; f3 <= 0; end
                default: begin f0 <= 0; f1 <= 0; f2 <= 0; f3 <= 1; end
            endcase
            if (go) mode <= mode + 1;
            else if (jump == 2'd3) mode <= 2'd0;
        end
    assign m = {f3 | f2, f3 | f1};
    assign busy = f1 | f2;
    assign was0 = f0;
endmodule
"""


def _job(ref, top):
    return FlowJob(top=top, ref={"ref.v": ref}, stages=("lint", "equiv"), use_cache=False)


def test_flags_of_the_previous_mode_become_a_copy_proven_equal():
    d = Design(PREV, "prev")
    (o,) = options(d, ["decode_delay"])
    assert o.params["source"] == "mode" and "4 flip-flops -> 2" in o.label
    code = apply(d, o)
    assert "rtla_mode_d <= mode;" in code and "f1 <= 1" not in code
    assert "always @* f2 = (rtla_mode_d == 2'd2);" in code
    rep = evaluate(_job(PREV, "prev"), {"prev.v": code})
    assert rep.ok and is_proven(rep.equiv_status), (rep.status, rep.failure_reason)


def test_a_wrong_decode_is_refused_by_the_flow():
    """Soundness: the copy with two flags' constants swapped is a candidate like any other, and the
    equivalence stage refutes it."""
    (g,) = decode_delay.groups(PREV, "prev")
    flags = list(g[2])
    (a, ca, ia), (b, cb, ib) = flags[1], flags[2]
    flags[1], flags[2] = (a, cb, ia), (b, ca, ib)
    bad = (g[0], g[1], tuple(flags), *g[3:])
    code = decode_delay.rewrite(Design(PREV, "prev").parsed(), bad)
    rep = evaluate(_job(PREV, "prev"), {"prev.v": code})
    assert not is_proven(rep.equiv_status or "") and rep.equiv_status == "counterexample"


# the flags copied once more (`g <= f`): decodes of the mode two cycles ago, offered in the same step
PREV2 = PREV.replace("output was0);", "output was0, output [3:0] g);").replace(
    "    assign was0 = f0;\n",
    "    assign was0 = f0;\n    reg g0, g1, g2, g3;\n    always @(posedge clk)\n"
    "        if (rst) begin g0 <= 1; g1 <= 0; g2 <= 0; g3 <= 0; end\n"
    "        else begin g0 <= f0; g1 <= f1; g2 <= f2; g3 <= f3; end\n    assign g = {g3, g2, g1, g0};\n")


def test_flags_of_flags_become_a_copy_of_the_copy_proven_equal():
    d = Design(PREV2, "prev")
    opts = [o for o in options(d, ["decode_delay"]) if o.params.get("depth") == 2]
    assert len(opts) == 1 and opts[0].params["source"] == "mode"
    code = apply(d, opts[0])
    assert "rtla_mode_d2 <= rtla_mode_d;" in code
    rep = evaluate(_job(PREV2, "prev"), {"prev.v": code})
    assert rep.ok and is_proven(rep.equiv_status), (rep.status, rep.failure_reason)
