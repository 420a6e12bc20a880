"""All open points decided together (eda.reach_multi) and parameter-constant arms (eda.reach_const): real
Yosys, ABC and Verilator on two small designs.

The counter design has points a few cycles deep (its toggles), one it never reaches (`cnt == 4'd15` when it
wraps at 9) and some only parameters rule out: `if (MODE)` with MODE 0 (Yosys folds the arm away, so
nothing is left to map it onto), `en && MODE` (folded to 0 with a signal in it), a `?:` on MODE and an expr
term on MODE."""
import pytest

from eda import coverage as cov
from eda import reach, reach_multi, reach_replay
from eda.ports import parse_ports

pytestmark = pytest.mark.requires("verilator", "yosys")

CNT = """\
module cnt #(parameter MODE = 0) (
    input            clk,
    input            rst,
    input            en,
    input      [3:0] d,
    output reg [3:0] q,
    output reg       hit,
    output     [3:0] y
);
    always @(posedge clk) begin
        if (rst) begin
            q <= 4'd0; hit <= 1'b0;
        end else begin
            if (MODE) begin
                if (en) q <= d;
            end else begin
                if (en)
                    q <= (q == 4'd9) ? 4'd0 : q + 4'd1;
            end
            if (en && MODE) hit <= 1'b1;
            if (q == 4'd15) hit <= 1'b1;
        end
    end
    assign y = MODE ? d : q;
endmodule
"""
SRC = {"cnt.v": CNT}
DEAD_LINES = (14, 15, 20)      # if (MODE) ... and its nested if; if (en && MODE)


@pytest.fixture(scope="module")
def points():
    ports = parse_ports(SRC, "cnt")
    # reset only: every point but the reset arm's stays open
    tb = ("module tb; reg clk = 0, rst = 1, en = 0; reg [3:0] d = 0; wire [3:0] q, y; wire hit;\n"
          "  cnt uut(.clk(clk), .rst(rst), .en(en), .d(d), .q(q), .hit(hit), .y(y));\n"
          "  always #5 clk = ~clk;\n  initial begin #22 $finish; end\nendmodule\n")
    runs = cov.coverage_runs(SRC, "cnt", tb, [[]], clock="clk")
    assert runs[0].ok, runs[0].status
    return ports, cov.merge(runs)


def _decide(points, **kw):
    ports, db = points
    holes = [p.key for p in db.uncovered(reach.TYPES)]
    return reach.decide(SRC, "cnt", db.all(), holes, ports, clock="clk", reset="rst", budget_s=60, **kw)


def test_all_points_together_give_the_verdicts_of_one_at_a_time(points, monkeypatch):
    multi = _decide(points)
    assert any("bmc3 -a" in n for n in multi.notes)          # the joint run did happen
    with monkeypatch.context() as m:
        m.setattr(reach.rm, "prime", lambda *a, **k: [])       # the per-point path alone
        single = _decide(points)
    assert set(multi.verdicts) == set(single.verdicts)
    assert {k: v.status for k, v in multi.verdicts.items()} == {k: v.status for k, v in single.verdicts.items()}
    wit = {k: v.vectors for k, v in multi.verdicts.items() if v.status == "witness"}
    assert len(wit) >= 8                                       # q's toggles, the wrap to 0, ...
    # the counterexamples many points share replay as one run each, in one build
    texts, hits = reach_replay.confirm(SRC, "cnt", points[0], wit, clock="clk")
    assert len(texts) == 1 and all(h["hit"] for h in hits.values())
    assert len({tuple(h["plusargs"]) for h in hits.values()}) < len(wit)
    # and the unreachable compare is proven, not witnessed
    ports, db = points
    q15 = [k for k, v in multi.verdicts.items() if v.point.startswith("cnt.v:21 branch if ")]
    assert q15 and all(multi.verdicts[k].status == "unreachable" for k in q15)


def test_parameter_constant_arms_are_unreachable_and_others_are_not(points):
    ports, db = points
    rep = _decide(points)
    const = {k: v for k, v in rep.verdicts.items() if v.method == "yosys-const"}
    lines = {db.points[k].line for k in const}
    assert set(DEAD_LINES) <= lines                            # the folded arms and what they hold
    assert all(v.status == "unreachable" and "constant" in v.reason for v in const.values())
    for p in db.all():                                         # the live arms are never ruled out so
        if p.line in (16, 17, 18) and p.type in ("line", "branch") and p.key in rep.verdicts:
            assert rep.verdicts[p.key].method != "yosys-const", p.describe()
    tern = [p for p in db.all() if p.line == 24 and p.type == "branch"]
    assert any(rep.verdicts.get(p.key) and rep.verdicts[p.key].method == "yosys-const" for p in tern)
    # an expr term on the parameter reads its value (a probe), so it is decided rather than refused
    mode = [p for p in db.all() if p.type == "expr" and "MODE==1" in p.comment and p.count == 0]
    assert mode and all(rep.verdicts[p.key].status == "unreachable" for p in mode)


def test_an_undecided_point_carries_why(points):
    ports, db = points
    odd = cov.Point("cnt.v", 11, "branch", "cnt", "uut", "weird_arm", 0, column=9, key="odd")
    rep = reach.decide(SRC, "cnt", db.all() + [odd], ["odd"], ports, clock="clk", reset="rst", budget_s=20)
    d = rep.verdicts["odd"].to_dict()
    assert d["status"] == "undecided" and d["why"] == "unmapped" and "no formal target" in d["reason"]
    assert reach_multi.why("bmc3: no witness within 40 cycles (bound reached); proof: a trace exists when "
                           "registers start free") == "bound reached"
    assert reach_multi.why("formal budget spent; proof: formal budget spent") == "engine limit"
