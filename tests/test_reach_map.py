"""Mapping fixes of eda.reach_map on a small design (real Verilator, Yosys, ABC): every open point mapped.

`sub` has its parameters in a multi-line `#( ... )` header and its files start with `` `resetall `` (Yosys
0.70 counts two lines too many after it); two copies sit in a generate loop (Verilator merges them as
`uut.g[*].u`, found by the declaration line of the toggled signal) and one with MODE=1 (Verilator names that
copy `sub__M1`). `t` stops at 5, so its bit 3 never moves; `HOLD` is 0, so `if (HOLD && a)` is never taken."""
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
    always @(posedge clk) begin
        if (rst) begin
            q <= 1'b0; t <= 4'd0;
        end else begin
            if (HOLD && a) q <= q;
            else q <= a ^ MODE[0];
            if (a && t != 4'd5) t <= t + 4'd1;
        end
    end
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
    for p in holes:
        if p.comment.startswith("t[3]") or p.line == 20:             # bit 3 never moves; HOLD is 0
            assert got[p.key].status == "unreachable", got[p.key].point
    assert sum(v.status == "witness" for v in got.values()) >= 2     # t[2] falls after a reset
