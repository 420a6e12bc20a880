"""resynth: a small sequential module written again from its reachable state graph, checked by the real
flow (Yosys export in the sandbox, the equivalence stage)."""
import dataclasses

import pytest

from eda.flow import FlowJob, evaluate
from eda.report import is_proven
from rtl_agent.transforms import Design, TransformError, apply, options
from rtl_agent.transforms import resynth

# a divide-by-6: a 2-bit counter and a toggle flop (6 reachable states of 3 flip-flop bits)
DIV6 = """module div6(input clk, input rst_n, output reg q);
    reg [1:0] c;
    always @(posedge clk or negedge rst_n)
        if (!rst_n) begin c <= 0; q <= 0; end
        else if (c < 2) c <= c + 1;
        else begin c <= 0; q <= ~q; end
endmodule
"""

# two states that no input tells apart (b and c: same output, same successors): merged into one
DETECT = """module det(input clk, input rst, input x, output y);
    reg [1:0] s;
    always @(posedge clk)
        if (rst) s <= 0;
        else case (s)
            0: s <= x ? 1 : 0;
            1: s <= x ? 2 : 3;
            2: s <= x ? 2 : 3;
            default: s <= x ? 1 : 0;
        endcase
    assign y = (s == 3);
endmodule
"""

NORESET = """module nr(input clk, input rst, input x, output reg y);
    reg d;
    always @(posedge clk) begin
        if (rst) y <= 0; else y <= d;
        d <= x;
    end
endmodule
"""


def _job(ref, top):
    return FlowJob(top=top, ref={"ref.v": ref}, stages=("lint", "equiv"), use_cache=False)


def test_counter_and_toggle_become_one_register_proven_equal():
    opts = {o.params["encoding"]: o for o in options(Design(DIV6, "div6"), ["resynth"])}
    assert {"binary", "gray", "onehot", "johnson", "aligned"} <= set(opts)
    m = resynth.machine(DIV6, "div6")
    assert (m.reached, m.k) == (6, 6) and m.input_free()
    code = apply(Design(DIV6, "div6"), opts["johnson"])
    assert "rtla_s <= {rtla_s[1:0], ~rtla_s[2]}" in code          # 3 flip-flops, a shift and an inverter
    assert "rtla_o[0] = rtla_s[" in code                           # the output is a code bit: no decoder
    for enc in ("johnson", "binary"):
        rep = evaluate(_job(DIV6, "div6"), {"div6.v": apply(Design(DIV6, "div6"), opts[enc])})
        assert rep.ok and is_proven(rep.equiv_status), (enc, rep.status, rep.failure_reason)


def test_states_no_input_tells_apart_are_merged_and_proven():
    m = resynth.machine(DETECT, "det")
    assert m.reached == 4 and m.k == 3 and not m.input_free()
    o = next(o for o in options(Design(DETECT, "det"), ["resynth"]) if o.params["encoding"] == "binary")
    rep = evaluate(_job(DETECT, "det"), {"det.v": apply(Design(DETECT, "det"), o)})
    assert rep.ok and is_proven(rep.equiv_status), (rep.status, rep.failure_reason)


def test_a_wrong_machine_is_refused_by_the_flow():
    """Soundness: the rewrite with one transition changed (a merge that should not have happened) is a
    candidate like any other, and the equivalence stage refutes it."""
    m = resynth.machine(DETECT, "det")
    bad = dataclasses.replace(m, nxt=[row if s != 1 else [0, 0] for s, row in enumerate(m.nxt)])
    code = resynth.emit(Design(DETECT, "det").parsed(), bad, "binary")
    rep = evaluate(_job(DETECT, "det"), {"det.v": code})
    assert not is_proven(rep.equiv_status or "") and rep.equiv_status == "counterexample"


def test_a_flip_flop_the_reset_leaves_is_not_rewritten():
    with pytest.raises(TransformError, match="reset does not set every flip-flop"):
        resynth.machine(NORESET, "nr")
    assert options(Design(NORESET, "nr"), ["resynth"]) == []


def test_a_flip_flop_the_reset_leaves_but_no_output_sees_is_merged_away():
    # d has no reset and reaches q only when c == 3, which never happens
    dead = DIV6.replace("output reg q);", "input x, output reg q);\n    reg d;\n    always @(posedge clk) d <= x;") \
        .replace("else if (c < 2)", "else if (c == 3) q <= d;\n        else if (c < 2)")
    m = resynth.machine(dead, "div6")
    assert m.k == 6 and m.reached > 6          # the two starts of d: twice the states, merged back to six
