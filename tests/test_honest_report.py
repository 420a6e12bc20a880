"""A report that cannot mislead (issue 49 item 5): loops fail, no `pass` beside an `error`, no PPA without a timed
path; the optimize reward never scores such a design. Real tools on tiny designs."""
from eda.flow import FlowJob, evaluate
from eda.lint import lint
from eda.report import Diagnostic, Report, StageResult, parse_diagnostics

LOOP = "module loop(input a, output y);\n  assign y = ~y ^ a;\nendmodule\n"
# bits of one vector depend on each other in order: Verilator may flag the vector, but it is no loop
CARRY = """module carry(input [3:0] a, input [3:0] b, output [3:0] s);
  wire [4:0] c;
  assign c[0] = 1'b0;
  assign c[4:1] = (a & b) | ((a ^ b) & c[3:0]);
  assign s = a ^ b ^ c[3:0];
endmodule
"""


def test_combinational_loop_fails_lint_and_is_never_scored():
    st = lint({"loop.v": LOOP}, "loop")
    assert st.status == "fail"
    assert "combinational loop" in st.diagnostics[0].message and st.diagnostics[0].line == 2
    rep = evaluate(FlowJob(top="loop", use_cache=False), {"loop.v": LOOP})
    assert rep.status == "fail" and rep.failed_stage == "lint" and rep.ppa is None
    # past lint (stages without it), the timer finds the loop it cut: no delay, no PPA
    rep = evaluate(FlowJob(top="loop", stages=("synth", "sta"), use_cache=False), {"loop.v": LOOP})
    assert rep.failed_stage == "sta" and rep.ppa is None and rep.delay_ns is None
    assert "combinational loop" in rep.stages["sta"].diagnostics[0].message
    from rtl_agent.jobs.optimize.config import OptimizeConfig
    from rtl_agent.jobs.optimize.reward import score
    assert score(rep, 1e-6, OptimizeConfig(task="x"))[3] is None


def test_vector_carry_is_not_a_loop():
    assert lint({"carry.v": CARRY}, "carry").status == "pass"


def test_verilator_continuation_lines_are_not_errors():
    out = "%Warning-UNOPTFLAT: loop.v:1:29: Signal unoptimizable\n                  loop.v:1:29:      Example path: y\n"
    assert [d.severity for d in parse_diagnostics(out, only_errors=False)] == ["warning"]
    assert parse_diagnostics(out) == []


def test_a_passing_stage_carries_no_error():
    rep = Report()
    rep.add(StageResult("equiv", "proven", diagnostics=[Diagnostic("induction did not close; proven by pdr")]))
    assert rep.status == "pass" and rep.stages["equiv"].diagnostics[0].severity == "info"
    rep.add(StageResult("lint", "fail", diagnostics=[Diagnostic("x")]))
    assert rep.stages["lint"].diagnostics[0].severity == "error"


def test_no_constrained_path_fails_sta(tmp_path):
    from eda import pdk
    from eda.sta import timing_power
    (tmp_path / "netlist.v").write_text("module m(a, y);\n  input a;\n  output y;\n  LOGIC1_X1 t (.Z(y));\nendmodule\n")
    st = timing_power(tmp_path / "netlist.v", "m", pdk.liberty("nangate45"))
    assert st.status == "fail" and st.data["delay_ns"] is None
    assert "no constrained timing path" in st.diagnostics[0].message


def test_unclocked_latch_is_said():
    # outputs driven by latches whose enables are inputs the timer has no clock for: only the enable-to-output delay
    # from time 0 was timed (a pass with a PPA); no path into a latch is
    src = """module lat(input [3:0] d, input g, output reg [3:0] q);
  always @* if (g) q = d;
endmodule
"""
    rep = evaluate(FlowJob(top="lat", stages=("synth", "sta"), use_cache=False), {"lat.v": src})
    st = rep.stages["sta"]
    assert st.data["unclocked_pins"] == st.data["registers"] == 4
    assert st.status == "fail" and rep.ppa is None and st.data["delay_ns"] is None
    assert "no clock reaches any of its 4 flip-flop/latch clock pins" in st.diagnostics[0].message


# issue 59 item 4: a latch and a negedge flip-flop, no input named like a clock. The flip-flops' clock is an inverted
# input, which the timer did not trace, so every register went untimed and `eval` passed with the clock-to-output
# delay of an untimed flip-flop (0.084 ns) as the design's delay
LATCH_NEGEDGE = """module latneg(input g, input c, input [3:0] d, output reg [3:0] q);
  reg [3:0] l;
  always @* if (g) l = d;
  always @(negedge c) q <= l;
endmodule
"""
# the same with the flip-flops clocked by logic: the timer can time no register at all
GATED = LATCH_NEGEDGE.replace("module latneg(", "module gated(input a, ").replace("negedge c", "negedge (a & c)")


def test_a_negedge_flop_clocked_through_an_inverter_is_timed():
    rep = evaluate(FlowJob(top="latneg", use_cache=False), {"latneg.v": LATCH_NEGEDGE})
    st = rep.stages["sta"]
    assert st.data["clock"] == "c" and st.data["registers"] == 8 and st.data["unclocked_pins"] == 4   # the latches
    assert rep.status == "pass" and rep.delay_ns > 0 and rep.ppa > 0
    assert "no clock" in st.diagnostics[0].message and st.diagnostics[0].severity == "warning"


def test_a_design_the_timer_cannot_time_is_no_pass_and_never_scored():
    rep = evaluate(FlowJob(top="gated", use_cache=False), {"gated.v": GATED})
    st = rep.stages["sta"]
    assert rep.status == "fail" and rep.failed_stage == "sta" and st.data["delay_ns"] is None
    assert rep.ppa is None and rep.delay_ns is None and rep.to_dict()["ppa"] is None
    assert "no clock reaches any of its 8 flip-flop/latch clock pins" in st.diagnostics[0].message
    from rtl_agent.jobs.optimize.config import OptimizeConfig
    from rtl_agent.jobs.optimize.reward import score
    assert score(rep, 1e-6, OptimizeConfig(task="x"))[1:] == ("fail", "sta", None)


def test_flops_name_their_clock_when_no_input_looks_like_one():
    # `c` is no clock by name: before, its flip-flops went untimed (the adder between them was not on any path,
    # delay 0.097 ns and no clock power); now the flip-flops' own clock input is the timing clock
    src = "module oddclk(input c, input [7:0] d, output reg [7:0] q);\n  always @(posedge c) q <= q + d;\nendmodule\n"
    rep = evaluate(FlowJob(top="oddclk", stages=("synth", "sta"), use_cache=False), {"oddclk.v": src})
    st = rep.stages["sta"]
    assert rep.status == "pass" and st.data["clock"] == "c" and st.data["unclocked_pins"] == 0
    assert rep.delay_ns > 0.2            # clock to q, through the adder, to the next flip-flop


def test_a_path_from_a_negedge_flop_is_timed_from_its_edge():
    # the output is one OR after a negedge flip-flop: the timer's arrival counts the half period the launch edge
    # waits (5 ns of a 10 ns clock), which is the clock's, not the logic's (freq_divbyfrac's routed 5.19 ns)
    src = """module neg(input clk, input a, input b, output y);
  reg p, n;
  always @(posedge clk) p <= a;
  always @(negedge clk) n <= b;
  assign y = p | n;
endmodule
"""
    rep = evaluate(FlowJob(top="neg", stages=("synth", "sta"), use_cache=False), {"neg.v": src})
    st = rep.stages["sta"]
    assert st.data["launch_ns"] == 5.0 and "clk'" in st.data["critical_path"].splitlines()[0]
    assert rep.status == "pass" and 0.02 < rep.delay_ns < 1.0, rep.delay_ns      # was 5.12 ns



def test_power_that_opensta_cannot_propagate_is_said():
    # picorv32: OpenSTA 2.0's activity propagation ends in NaN and report_power stopped the stage with a Tcl error
    from eda.config import require_shared
    from eda.design_inputs import gather
    texts = gather([require_shared("corpus/picorv32/picorv32.v")], top="picorv32")
    rep = evaluate(FlowJob(top="picorv32", stages=("synth", "sta"), use_cache=False), texts)
    st = rep.stages["sta"]
    assert rep.status == "pass" and st.data["power_activity"] == "global 0.1" and rep.power_w > 0
    assert st.diagnostics[-1].severity == "warning" and "not comparable" in st.diagnostics[-1].message
