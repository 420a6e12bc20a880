"""resynth's `flags` encoding: a pattern detector written as a binary-coded FSM becomes history flags, each set
from the inputs and at most one other flag, checked by the real flow (Yosys export, the equivalence stage)."""
import dataclasses
import re

from eda.flow import FlowJob, evaluate
from eda.report import is_proven
from rtl_agent.transforms import Design, apply, options
from rtl_agent.transforms import resynth
from rtl_agent.transforms.resynth_flags import emit_flags, flag_codes

# symbols 3, 1, 2 in a row on a 2-bit input, written the usual way: a binary state per prefix seen
SYM312 = """module sym312(input clk, input rst_n, input [1:0] sym, output hit);
    reg [1:0] st;
    always @(posedge clk or negedge rst_n)
        if (!rst_n) st <= 2'd0;
        else case (st)
            2'd1: st <= sym == 2'd1 ? 2'd2 : sym == 2'd3 ? 2'd1 : 2'd0;
            2'd2: st <= sym == 2'd2 ? 2'd3 : sym == 2'd3 ? 2'd1 : 2'd0;
            default: st <= sym == 2'd3 ? 2'd1 : 2'd0;
        endcase
    assign hit = st == 2'd3;
endmodule
"""


def _job(ref, top):
    return FlowJob(top=top, ref={"ref.v": ref}, stages=("lint", "equiv"), use_cache=False)


def test_a_pattern_fsm_becomes_a_chain_of_flags_proven_equal():
    d = Design(SYM312, "sym312")
    o = next(o for o in options(d, ["resynth"]) if o.params["encoding"] == "flags")
    m = resynth.machine(SYM312, "sym312")
    assert m.k == 4 and flag_codes(m)[0] == 3              # one flag per prefix seen, reset state all zeros
    code = apply(d, o)
    nexts = re.findall(r"rtla_s\[(\d)\] <= (.*);", code)
    assert len(nexts) == 3
    # the shift-and form: each next state reads the inputs and at most one flag
    assert all(len(set(re.findall(r"rtla_s\[\d\]", e))) <= 1 for _, e in nexts)
    assert "assign rtla_o[0] = rtla_s[" in code and "&" not in code.split("assign rtla_o[0] =")[1].split(";")[0]
    rep = evaluate(_job(SYM312, "sym312"), {"sym312.v": code})
    assert rep.ok and is_proven(rep.equiv_status), (rep.status, rep.failure_reason)


def test_a_wrong_output_table_is_refused_by_the_flow():
    """Soundness: the flags rewrite of a machine with one output entry flipped is a candidate like any other,
    and the equivalence stage refutes it."""
    m = resynth.machine(SYM312, "sym312")
    out = [list(r) for r in m.out]
    out[2][2] ^= 1                                       # after '3 1', symbol 2 would raise hit at once
    code = emit_flags(Design(SYM312, "sym312").parsed(), dataclasses.replace(m, out=out))
    rep = evaluate(_job(SYM312, "sym312"), {"sym312.v": code})
    assert not is_proven(rep.equiv_status or "") and rep.equiv_status == "counterexample"


# both edges of x, registered: the registered outputs are functions of the last two values of x, so two flags
# (x one and two cycles ago, a shift register) hold the machine, and the older one, read inverted, is cheaper
# stored inverted (then `dn` is a NOR)
EDGES = """module edges(input clk, input rst, input x, output reg up, output reg dn);
    reg xp;
    always @(posedge clk)
        if (rst) begin xp <= 0; up <= 0; dn <= 0; end
        else begin xp <= x; up <= x & ~xp; dn <= ~x & xp; end
endmodule
"""


def test_a_flag_read_inverted_is_stored_inverted_and_proven():
    d = Design(EDGES, "edges")
    o = next(o for o in options(d, ["resynth"]) if o.params["encoding"] == "flags")
    code = apply(d, o)
    reset = re.search(r"if \(rst\) rtla_s <= 2'd(\d);", code)            # 2 flip-flops, not 3
    assert reset and int(reset.group(1)) != 0                 # one flag resets to 1: it holds an inverted x
    assert re.search(r"rtla_s\[1\] <= ~rtla_s\[0\];", code)
    rep = evaluate(_job(EDGES, "edges"), {"edges.v": code})
    assert rep.ok and is_proven(rep.equiv_status), (rep.status, rep.failure_reason)
