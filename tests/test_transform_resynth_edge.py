"""resynth on both clock edges (resynth_edge): the rising- and falling-edge halves searched over half cycles,
merged and re-encoded each on its own edge, checked by the real flow (Yosys export, the equivalence stage with
clk2fflogic); wrong rewrites (one transition, a register on the wrong edge) are refuted."""
import dataclasses

import pytest

from eda.flow import FlowJob, evaluate
from eda.report import is_proven
from rtl_agent.transforms import Design, TransformError, apply, options
from rtl_agent.transforms import resynth_edge
from rtl_agent.transforms.resynth_edge_emit import emit_edge

# divide by 3 with an enable: a rising-edge counter and phase, a falling-edge copy of the phase, output the OR
DIV3 = """module div3b(input clk, input rst_n, input en, output q);
    reg [1:0] c;
    reg a, b;
    always @(posedge clk or negedge rst_n)
        if (!rst_n) begin c <= 0; a <= 0; end
        else if (en) begin c <= (c == 2) ? 2'd0 : c + 2'd1; a <= (c == 0); end
    always @(negedge clk or negedge rst_n)
        if (!rst_n) b <= 0;
        else b <= a;
    assign q = a | b;
endmodule
"""

# divide by 5, 50% duty: one counter and phase per edge, independent halves (a 6-state lasso each)
ODD5 = """module odd5(input clk, input rst_n, output y);
    reg [2:0] cp, cn;
    reg hp, hn;
    always @(posedge clk or negedge rst_n)
        if (!rst_n) begin cp <= 0; hp <= 1; end
        else begin cp <= (cp == 4) ? 3'd0 : cp + 3'd1; hp <= (cp < 2); end
    always @(negedge clk or negedge rst_n)
        if (!rst_n) begin cn <= 0; hn <= 1; end
        else begin cn <= (cn == 4) ? 3'd0 : cn + 3'd1; hn <= (cn < 2); end
    assign y = hp | hn;
endmodule
"""


def _job(ref, top):
    return FlowJob(top=top, ref={"ref.v": ref}, stages=("lint", "equiv"), use_cache=False)


def _opts(code, top):
    return {o.params["encoding"]: o for o in options(Design(code, top), ["resynth"])}


def test_both_edge_machine_with_an_input_is_rewritten_and_proven():
    m = resynth_edge.for_design(Design(DIV3, "div3b"))
    assert (m.kp, m.kn, m.flops) == (3, 2, (3, 1))
    opts = _opts(DIV3, "div3b")
    assert {"binary", "aligned"} <= set(opts)
    code = apply(Design(DIV3, "div3b"), opts["binary"])
    assert "always @(posedge clk or negedge rst_n)" in code and "always @(negedge clk or negedge rst_n)" in code
    assert "rtla_n <= rtla_p[" in code            # the falling-edge half is a copy of a rising-edge code bit
    rep = evaluate(_job(DIV3, "div3b"), {"div3b.v": code})
    assert rep.ok and is_proven(rep.equiv_status), (rep.status, rep.failure_reason)


def test_independent_halves_become_two_shift_registers_proven():
    opts = _opts(ODD5, "odd5")
    code = apply(Design(ODD5, "odd5"), opts["johnson"])
    # each half: 3 flip-flops, a shift with an inverter and one jump back into the loop; the output one gate
    assert code.count("? 3'd") == 2 and "~rtla_p[2]" in code
    assert "rtla_o[0] = " in code and "case ({" not in code
    rep = evaluate(_job(ODD5, "odd5"), {"odd5.v": code})
    assert rep.ok and is_proven(rep.equiv_status), (rep.status, rep.failure_reason)


def test_a_wrong_transition_is_refuted():
    m = resynth_edge.for_design(Design(DIV3, "div3b"))
    # the falling-edge half takes the wrong value in one reachable pair
    key = next(k for k, r in sorted(m.pairs.items()) if r[2] is not None and k[0] == 1)
    o, pr, nr = m.pairs[key]
    bad = dataclasses.replace(m, pairs={**m.pairs, key: (o, pr, tuple(1 - x for x in nr))})
    code = emit_edge(Design(DIV3, "div3b").parsed(), bad, "binary")
    rep = evaluate(_job(DIV3, "div3b"), {"div3b.v": code})
    assert rep.equiv_status == "counterexample", (rep.status, rep.equiv_status)


def test_the_falling_half_on_the_rising_edge_is_refuted():
    code = apply(Design(DIV3, "div3b"), _opts(DIV3, "div3b")["binary"])
    wrong = code.replace("always @(negedge clk or", "always @(posedge clk or")
    assert wrong != code
    rep = evaluate(_job(DIV3, "div3b"), {"div3b.v": wrong})
    assert rep.equiv_status == "counterexample", (rep.status, rep.equiv_status)


def test_a_both_edge_module_without_asynchronous_reset_is_refused():
    sync = DIV3.replace("posedge clk or negedge rst_n", "posedge clk").replace("negedge clk or negedge rst_n",
                                                                               "negedge clk")
    with pytest.raises(TransformError, match="asynchronous reset"):
        resynth_edge.for_design(Design(sync, "div3b"))
    assert options(Design(sync, "div3b"), ["resynth"]) == []
