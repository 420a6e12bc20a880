"""Mapping fixes of eda.reach_map on a small design (real Verilator, Yosys, ABC): every open point mapped.

`sub` has its parameters in a multi-line `#( ... )` header and its files start with `` `resetall `` (Yosys
0.70 counts two lines too many after it); two copies sit in a generate loop (Verilator merges them as
`uut.g[*].u`, found by the declaration line of the toggled signal) and one with MODE=1 (Verilator names that
copy `sub__M1`). `t` stops at 5, so its bit 3 never moves and `case (t)` never takes 4'd7; `HOLD` is 0, so
`if (HOLD && a)` is never taken; `hold` (declared in a generate loop, read by local name in an expr point)
stays 0; `(t[3:2] & t[1:0])[1]` is an expr term with an operator inside; `w` is assigned in a generate `if`
(continuous, not procedural); the case has no `default` (Yosys adds one, Verilator has no point for it)."""
import pytest

from eda import coverage as cov
from eda import reach
from eda.ports import parse_ports
from eda.random_stim import seeded_stimulus
from eda.reach_model import blocking_targets

pytestmark = pytest.mark.requires("verilator", "yosys")

TOP = """`resetall
`timescale 1ns / 1ps
`default_nettype none
module top #(parameter N = 2) (
    input  wire         clk,
    input  wire         rst,
    input  wire [N-1:0] a,
    output wire [N:0]   q
);
    genvar i;
    generate for (i = 0; i < N; i = i + 1) begin : g
        sub u (.clk(clk), .rst(rst), .a(a[i]), .q(q[i]));
    end endgenerate
    sub #(.MODE(1)) u1 (.clk(clk), .rst(rst), .a(a[0]), .q(q[N]));
endmodule
`resetall
"""
SUB = """`resetall
`timescale 1ns / 1ps
`default_nettype none
module sub #
(
    parameter MODE = 0,
    parameter HOLD = 0
)
(
    input  wire clk,
    input  wire rst,
    input  wire a,
    output reg  q
);
    reg [3:0] t = 4'd0;
    reg       c = 1'b0;
    wire      w;
    generate if (MODE) begin
        assign w = a;
    end else begin
        assign w = 1'b1;
    end endgenerate
    genvar k;
    for (k = 0; k < 2; k = k + 1) begin : s
        reg hold = 1'b0;
        always @(posedge clk) hold <= hold & a;
    end
    always @(posedge clk) begin
        if (rst) begin
            q <= 1'b0; t <= 4'd0;
        end else begin
            if (HOLD && a) q <= q;
            else q <= a ^ MODE[0];
            if (a && t != 4'd5) t <= t + 4'd1;
            if (s[0].hold || (t[3:2] & t[1:0])) c <= ~c;
            if (w && !a) c <= 1'b0;
            case (t)
                4'd1: c <= 1'b1;
                4'd7: c <= 1'b0;
            endcase
        end
    end
    reg c2 = 1'b0;
    always @(posedge clk) begin
        if (HOLD == 0) c2 <= a;
        else if (MODE == 5) c2 <= ~a;
        else c2 <= MODE ? a : 1'b1;
    end
    wire v = MODE ? a : 1'b0;
endmodule
`resetall
"""
SRC = {"top.v": TOP, "sub.v": SUB}


def test_points_in_generate_copies_and_parameterised_copies_are_all_decided():
    assert not {"MODE", "HOLD"} & blocking_targets(SUB)          # header parameters are not procedural `=`
    ports = parse_ports(SRC, "top")
    text = seeded_stimulus(ports, "top", clock="clk", reset="rst", cycles=100)
    db = cov.merge(cov.coverage_runs(SRC, "top", text, [["+seed=1"]], clock="clk"))
    holes = [p for p in db.uncovered(reach.TYPES)]
    assert any(p.module == "sub__M1" for p in holes) and any("[*]" in p.hier for p in holes)
    rep = reach.decide(SRC, "top", db.all(), [p.key for p in holes], ports, clock="clk", reset="rst",
                       budget_s=30, point_s=2)
    got = {p.key: rep.verdicts[p.key] for p in holes}
    assert all(v.status != "undecided" for v in got.values()), [(v.point, v.reason) for v in got.values()
                                                                 if v.status == "undecided"]
    # bit 3 never moves; HOLD is 0; t is never 7; hold stays 0; t[3] & t[1] never 1; the `else` arms of a
    # covered `if (HOLD == 0)` (an `else if` chain: one statement) and the `?:` in them
    for p in holes:
        if (p.comment.startswith("t[3]") or p.line in (32, 39, 46, 47) or "hold==1" in p.comment
                or "(t[3:2] & t[1:0])[1]==1" in p.comment):
            assert got[p.key].status == "unreachable", got[p.key].point
    assert {p.line for p in holes} >= {26, 32, 35, 36, 39, 46, 47, 49}
    # a `?:` on MODE, 0 in two copies and 1 in the third: each copy's dead arm is its own
    arms = {(p.hier, p.comment): got[p.key] for p in holes if p.line == 49 and p.type == "branch"}
    assert len(arms) == 2 and all(v.method == "yosys-const" for v in arms.values()), arms
    assert sum(v.status == "witness" for v in got.values()) >= 2     # t[2] falls after a reset


CLR = """module clr (
    input  wire       clk,
    input  wire       rst,
    input  wire       a,
    output reg  [1:0] x,
    output reg        y
);
    reg p;
    always @(posedge clk) begin
        p <= rst;
        x <= p ? 2'b00 : {x[0], 1'b0};
        y <= rst ? 1'b0 : a;
    end
endmodule
"""


def test_a_toggle_only_a_nonzero_power_up_reaches_is_unreachable_in_simulation():
    """x is cleared the cycle after reset and only shifts zeros in: from the all-zero start Verilator
    simulates, x never moves (a trace exists only where x powers up non-zero): "zero-start" unreachable."""
    src = {"clr.v": CLR}
    ports = parse_ports(src, "clr")
    text = seeded_stimulus(ports, "clr", clock="clk", reset="rst", cycles=40)
    db = cov.merge(cov.coverage_runs(src, "clr", text, [["+seed=1"]], clock="clk"))
    xs = [p for p in db.uncovered(reach.TYPES) if p.type == "toggle" and p.comment.startswith("x[")]
    assert len(xs) == 4
    rep = reach.decide(src, "clr", db.all(), [p.key for p in xs], ports, clock="clk", reset="rst", budget_s=20)
    got = [rep.verdicts[p.key] for p in xs]
    assert all(v.status == "unreachable" for v in got), [(v.point, v.reason) for v in got]
    assert any(v.method.endswith("-zero-start") for v in got)           # x[1] rises only from a non-zero x[0]
