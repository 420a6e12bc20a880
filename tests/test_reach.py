"""Formal reachability of coverage holes (eda.reach): real Yosys, ABC and Verilator, one small design.

The lock opens on a 16-bit code written as two bytes (C3 then A5): constrained-random stimulus misses it
(a chance of 2^-16 per try); a formal witness reaches it in three cycles. The `st == 3` branch cannot be
reached from reset (st only takes 0, 1, 2): ABC pdr proves it, a waiver."""
import copy

import pytest

from eda import coverage as cov
from eda import reach, reach_replay
from eda.ports import parse_ports
from eda.random_stim import seeded_stimulus

pytestmark = pytest.mark.requires("verilator", "yosys")

LOCK = """\
module lock (
    input            clk,
    input            rst_n,
    input            wr,
    input      [7:0] data,
    output reg       open,
    output reg [1:0] st
);
    reg [7:0] first;
    reg       bad;
    always @(posedge clk or negedge rst_n) begin
        if (!rst_n) begin
            st <= 2'd0; open <= 1'b0; first <= 8'd0; bad <= 1'b0;
        end else if (wr) begin
            case (st)
                2'd0: begin first <= data; st <= 2'd1; end
                2'd1: begin
                    if ({first, data} == 16'hC3A5) begin
                        open <= 1'b1;
                        st <= 2'd2;
                    end else st <= 2'd0;
                end
                default: st <= 2'd0;
            endcase
            if (st == 2'd3) bad <= 1'b1;
        end
    end
endmodule
"""
SRC = {"lock.v": LOCK}
CODE_LINE = 18          # if ({first, data} == 16'hC3A5)
IMPOSSIBLE_LINE = 25    # if (st == 2'd3)


@pytest.fixture(scope="module")
def decided():
    ports = parse_ports(SRC, "lock")
    text = seeded_stimulus(ports, "lock", clock="clk", reset="rst_n", reset_active_low=True, cycles=200, styles=True)
    runs = cov.coverage_runs(SRC, "lock", text, [[f"+seed={s}"] for s in range(4)], clock="clk")
    db = cov.merge(runs)
    holes = [p.key for p in db.uncovered()]
    rep = reach.decide(SRC, "lock", db.all(), holes, ports, clock="clk", reset="rst_n", active_low=True, budget_s=90)
    return ports, db, rep


def _branch(db, line, arm="if"):
    return next(p for p in db.all() if p.type == "branch" and p.line == line and p.comment == arm)


def test_random_misses_the_code_and_formal_finds_a_witness_that_replays(decided):
    ports, db, rep = decided
    p = _branch(db, CODE_LINE)
    assert p.count == 0                                    # 4 x 200 random cycles never hit the code
    v = rep.verdicts[p.key]
    assert v.status == "witness" and v.method.startswith("abc-") and rep.mode == "normal"
    writes = [(c["wr"], c["data"]) for c in v.vectors]
    assert (1, 0xC3) in writes and (1, 0xA5) in writes     # the two bytes, in the trace
    assert v.vectors[0]["rst_n"] == 0                      # it starts with the testbench's reset
    texts, hits = reach_replay.confirm(SRC, "lock", ports, {p.key: v.vectors}, clock="clk")
    assert len(texts) == 1 and "lock uut(" in texts[0] and "+w=0" in " ".join(hits[p.key]["plusargs"])
    assert hits[p.key]["hit"] and hits[p.key]["status"] == "pass"


def test_impossible_branch_is_proven_unreachable(decided):
    _, db, rep = decided
    p = _branch(db, IMPOSSIBLE_LINE)
    v = rep.verdicts[p.key]
    assert p.count == 0 and v.status == "unreachable" and v.method == "abc-pdr" and v.bound == "unbounded"
    # the register only that branch sets never toggles: both directions waived
    bad = [rep.verdicts[q.key] for q in db.all() if q.type == "toggle" and q.comment.startswith("bad:")]
    assert len(bad) == 2 and all(x.status == "unreachable" for x in bad)
    # and nothing reachable was "proven" unreachable
    assert not any(x.status == "unreachable" for k, x in rep.verdicts.items()
                   if k == _branch(db, CODE_LINE).key)


def test_tampered_witness_is_not_counted(decided):
    ports, db, rep = decided
    p = _branch(db, CODE_LINE)
    wrong = copy.deepcopy(rep.verdicts[p.key].vectors)
    for c in wrong:
        if c["data"] == 0xA5:
            c["data"] = 0xA4                               # one bit off: the lock stays shut
    _, hits = reach_replay.confirm(SRC, "lock", ports, {p.key: wrong}, clock="clk")
    assert hits[p.key]["status"] == "pass" and not hits[p.key]["hit"]


def test_unreadable_design_is_undecided_with_the_reason():
    bad = {"x.v": "module x(input clk, output y);\n  assign y = clk &;\nendmodule\n"}
    pt = cov.Point("x.v", 2, "toggle", "x", "uut", "y:0->1", 0, key="k1")
    rep = reach.decide(bad, "x", [pt], ["k1"], parse_ports({"x.v": "module x(input clk, output y); endmodule"}, "x"),
                       clock="clk", budget_s=20)
    v = rep.verdicts["k1"]
    assert v.status == "undecided" and "Yosys cannot read" in v.reason and rep.error


def test_point_comments_parse_into_targets():
    from eda.reach_model import blocking_targets, expr_terms, toggle_of
    assert toggle_of("st[1]:0->1") == ("st", 1, "up") and toggle_of("bad:1->0") == ("bad", 0, "down")
    assert toggle_of("mem[2][5]:1->0") == ("mem[2]", 5, "down")          # an array element's wire
    assert expr_terms("(a==1 && b[2]==0) => 1") == [("a", 0, 1, None), ("b", 2, 0, None)]
    assert expr_terms("((m == 32'sh3b)==1) => 1") == [("m", None, 1, ("==", 59))]
    assert None in expr_terms("(g==0 && 32'sh0==1) => 1")               # a constant term that cannot hold
    assert expr_terms("((i > 5'h0)==0) => 0") == [("i", None, 0, (">", 0))]
    # other operators: a Verilog template over the signals (eda.reach_map.general_term); system calls: none
    assert expr_terms("((a + b)==1) => 0")[0][3][2] == ("a", "b")
    assert expr_terms("(($signed(a) > 4'sh0)==1) => 0") is None
    # terms on signals a process assigns with `=` are refused (the value there is not the wire's)
    text = "assign c = a,\n  d = b;\nalways @* begin x = a; y <= b; end\n"
    assert blocking_targets(text) == {"x"}


NESTED = """\
module nest (input [3:0] a, input [3:0] b, output [5:0] s);
    wire [3:0] s1, s2;
    wire c1, c2;
    add4 u_add1 (.x(a),  .y(b), .cin(1'b0), .s(s1), .cout(c1));
    add4 u_add2 (.x(s1), .y(b), .cin(1'b0), .s(s2), .cout(c2));
    assign s = {c1 & c2, c1 ^ c2, s2};
endmodule

module add4 (input [3:0] x, input [3:0] y, input cin, output [3:0] s, output cout);
    wire c2;
    add2 u_lo (.x(x[1:0]), .y(y[1:0]), .cin(cin), .s(s[1:0]), .cout(c2));
    add2 u_hi (.x(x[3:2]), .y(y[3:2]), .cin(c2),  .s(s[3:2]), .cout(cout));
endmodule

module add2 (input [1:0] x, input [1:0] y, input cin, output [1:0] s, output cout);
    assign {cout, s} = x + y + cin;
endmodule
"""
STOP = """\
module stop (input clk, input rst, input en, output [2:0] q);
    reg [15:0] n;
    always @(posedge clk) if (rst) n <= 0; else if (en && n != 16'd5) n <= n + 16'd1;
    assign q = n[2:0];
endmodule
"""


def test_a_merged_hierarchy_maps_onto_its_own_module_and_counter_bits_are_proven_together():
    """Verilator reports add4's points under `uut.u_add*`, a prefix that also covers add2's instances
    (uut.u_add1.u_hi, whose cin toggles). add4's cin is tied to 0 in both instances: unreachable, not a
    witness of add2's carry. And a 16-bit counter that stops at 5: bits 3..15 never rise (one joint pdr)."""
    src = {"nest.v": NESTED}
    ports = parse_ports(src, "nest")
    text = seeded_stimulus(ports, "nest", cycles=200)
    db = cov.merge(cov.coverage_runs(src, "nest", text, [["+seed=1"]]))
    cin = [p for p in db.all() if p.type == "toggle" and p.line == 9 and p.comment.startswith("cin:")]
    assert len(cin) == 2 and all(p.count == 0 and "*" in p.hier for p in cin), [(p.hier, p.count) for p in cin]
    rep = reach.decide(src, "nest", db.all(), [p.key for p in cin], ports, budget_s=60)
    assert [rep.verdicts[p.key].status for p in cin] == ["unreachable", "unreachable"], \
        [rep.verdicts[p.key].reason for p in cin]
    src = {"stop.v": STOP}
    ports = parse_ports(src, "stop")
    text = seeded_stimulus(ports, "stop", clock="clk", reset="rst", cycles=100)
    db = cov.merge(cov.coverage_runs(src, "stop", text, [["+seed=1"]], clock="clk"))
    high = [p for p in db.uncovered() if p.type == "toggle" and p.comment.startswith("n[")
            and int(p.comment[2:p.comment.index("]")]) >= 3]
    assert len(high) == 26                                  # bits 3..15, both directions
    rep = reach.decide(src, "stop", db.all(), [p.key for p in high], ports, clock="clk", reset="rst", budget_s=30,
                       point_s=1.0)
    assert all(rep.verdicts[p.key].status == "unreachable" for p in high)
