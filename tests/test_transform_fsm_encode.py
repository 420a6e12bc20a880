"""fsm_encode: which registers are clean FSMs, what a re-encoding writes, and that the flow proves a re-encoded
FSM and rejects a wrong one (real Yosys/ABC proofs)."""
import pytest

from eda.flow import FlowJob, evaluate
from rtl_agent.transforms import Design, TransformError, apply, options
from rtl_agent.transforms.fsm_encode import codes, find_fsms, literal_value
from rtl_agent.transforms.syntax import parse

# a 4-state Moore machine in the two-process style: codes by localparam, a literal in the reset
FSM = """module m(input clk, input rst, input a, output y, output z);
  localparam IDLE = 2'd0, RUN = 2'd1, WAIT = 2'd2, DONE = 2'd3;
  reg [1:0] st, nx;
  always @* begin
    case (st)
      IDLE: nx = a ? RUN : IDLE;
      RUN:  nx = a ? WAIT : RUN;
      WAIT: nx = a ? DONE : IDLE;
      default: nx = IDLE;
    endcase
  end
  always @(posedge clk) if (rst) st <= 2'd0; else st <= nx;
  assign y = (st == DONE);
  assign z = st != IDLE;
endmodule
"""


def _opts(code, top="m"):
    return options(Design(code, top), kinds_=("fsm_encode",))


def test_finds_the_fsm_and_offers_the_other_encodings():
    fsms = find_fsms(parse(FSM, "m"))
    assert len(fsms) == 1 and fsms[0].members == ["st", "nx"] and fsms[0].values == [0, 1, 2, 3]
    assert fsms[0].width == 2 and fsms[0].consts == {"IDLE": 0, "RUN": 1, "WAIT": 2, "DONE": 3}
    labels = [o.label for o in _opts(FSM)]
    assert len(labels) == 3 and not any("as binary" in lb for lb in labels)      # binary is what it is
    assert any("as gray" in lb for lb in labels) and any("bit tests" in lb for lb in labels)
    assert codes("onehot", 3) == (3, [1, 2, 4]) and codes("gray", 4) == (2, [0, 1, 3, 2])
    assert codes("binary", 5) == (3, [0, 1, 2, 3, 4]) and codes("binary", 2) == (1, [0, 1])
    assert literal_value("5'b0_0100") == 4 and literal_value("12") == 12 and literal_value("2'bx1") is None


def test_one_hot_rewrite_changes_codes_widths_literals_and_tests():
    o = next(o for o in _opts(FSM) if o.params == {"encoding": "onehot", "bit_tests": True})
    out = apply(Design(FSM, "m"), o)
    assert "IDLE = 4'b0001, RUN = 4'b0010, WAIT = 4'b0100, DONE = 4'b1000" in out
    assert "reg [3:0] st, nx;" in out and "st <= 4'b0001;" in out          # the literal reset code too
    assert "case (1'b1)" in out and "st[2]: nx = a ? DONE : IDLE;" in out
    assert "assign y = (st[3]);" in out and "assign z = !st[0];" in out
    gray = apply(Design(FSM, "m"), next(o for o in _opts(FSM) if o.params["encoding"] == "gray"))
    assert "DONE = 2'b10" in gray and "WAIT = 2'b11" in gray and "reg [1:0] st, nx;" in gray
    with pytest.raises(TransformError):
        apply(Design(FSM.replace("st <= nx", "st <= nx + 2'd1"), "m"), o)


@pytest.mark.parametrize("change", [
    ("st <= nx;", "st <= nx + 2'd1;"),                    # arithmetic on the state
    ("assign z = st != IDLE;", "assign z = st[0];"),      # a bit of the code is read
    ("assign z = st != IDLE;", "assign z = (WAIT == 2'd2);"),   # a code constant feeds other logic
    ("output z);", "output z, output [1:0] s);\n  assign s = st;"),  # the code leaves the module
    ("case (st)", "casez (st)"),
])
def test_unclean_registers_get_no_option(change):
    assert _opts(FSM.replace(*change)) == []


@pytest.mark.requires("yosys")
def test_reencoded_fsm_is_proven_and_a_wrong_one_is_rejected():
    job = FlowJob(top="m", ref={"ref.v": FSM}, stages=("lint", "equiv"), use_cache=False)
    for o in _opts(FSM):
        rep = evaluate(job, {"m.v": apply(Design(FSM, "m"), o)})
        assert rep.equiv_status == "proven", (o.label, rep.failed_stage, rep.equiv_status)
    # soundness 1: a counting FSM (state + 1) is not clean, so no option; had the constants been re-encoded
    # one-hot anyway, the flow refutes it
    counting = FSM.replace("RUN:  nx = a ? WAIT : RUN;", "RUN:  nx = a ? st + 2'd1 : RUN;")
    assert _opts(counting) == []
    wrong = counting.replace("2'd0, RUN = 2'd1, WAIT = 2'd2, DONE = 2'd3", "4'd1, RUN = 4'd2, WAIT = 4'd4, "
                             "DONE = 4'd8").replace("reg [1:0]", "reg [3:0]").replace("st <= 2'd0", "st <= 4'd1")
    rep = evaluate(job.replace(ref={"ref.v": counting}), {"m.v": wrong})
    assert rep.failed_stage == "equiv" and rep.equiv_status == "counterexample"
    # soundness 2: without a reset the power-up state is unknown: zero is IDLE in binary but no state at all in
    # one-hot, so the difference lies in states outside the reset protocol; the flow does not pass it (SAT
    # finds the zero-start difference, Icarus starts at X: a replay mismatch, which is a failure too)
    no_reset = FSM.replace("if (rst) st <= 2'd0; else st <= nx;", "st <= nx;").replace(
        "assign z = st != IDLE;", "assign z = st == IDLE;")
    o = next(o for o in _opts(no_reset) if o.params == {"encoding": "onehot", "bit_tests": False})
    rep = evaluate(job.replace(ref={"ref.v": no_reset}), {"m.v": apply(Design(no_reset, "m"), o)})
    assert not rep.ok and rep.failed_stage == "equiv" and rep.equiv_status != "proven"


@pytest.mark.requires("yosys")
def test_project_fsm_task_reencoded_and_proven():
    from designs import load_task
    t = load_task("fsm_seq")
    ref = "".join(t.reference_sources().values())
    opts = _opts(ref, t.top)
    assert {o.params["encoding"] for o in opts} == {"onehot", "gray"}
    gray = next(o for o in opts if o.params["encoding"] == "gray")
    rep = evaluate(t.flow_job(stages=("lint", "sim", "equiv"), use_cache=False),
                   {f"{t.top}.v": apply(Design(ref, t.top), gray)})
    assert rep.ok and rep.equiv_status == "proven"


SHIFT = """module s(input clk, input rst, input go, output y, output busy);
  reg [3:0] ph;
  always @(posedge clk)
    if (rst) ph <= 4'b0001;
    else if (ph[0]) ph <= go ? 4'b0010 : ph;
    else if (ph[3]) ph <= 4'b0001;
    else ph <= ph << 1;
  assign y = ph[2];
  assign busy = !ph[0];
endmodule
"""


@pytest.mark.requires("yosys")
def test_shifted_one_hot_register_becomes_a_counter():
    from designs import load_task
    t = load_task("fsm_onehot")
    ref = "".join(t.reference_sources().values())
    (o,) = _opts(ref, t.top)
    assert o.params == {"encoding": "counter"} and o.site == "state"
    out = apply(Design(ref, t.top), o)
    assert "reg [3:0] state;" in out and "state <= state + 4'd1;" in out and "(state == 4'd10)" in out
    rep = evaluate(t.flow_job(stages=("lint", "equiv"), use_cache=False), {f"{t.top}.v": out})
    assert rep.equiv_status == "proven"
    # small: 4 one-hot bits -> 2 counter bits, proven
    (o,) = _opts(SHIFT, "s")
    job = FlowJob(top="s", ref={"ref.v": SHIFT}, stages=("lint", "equiv"), use_cache=False)
    assert evaluate(job, {"s.v": apply(Design(SHIFT, "s"), o)}).equiv_status == "proven"
    # soundness: without the wrap back to bit 0 the one-hot register shifts out to zero (no bit set, busy
    # stays 1), while the 2-bit counter wraps to 0 (== bit 0, busy 0): the flow rejects it
    runs_out = SHIFT.replace("else if (ph[3]) ph <= 4'b0001;\n", "")
    (o,) = _opts(runs_out, "s")
    rep = evaluate(job.replace(ref={"ref.v": runs_out}), {"s.v": apply(Design(runs_out, "s"), o)})
    assert rep.failed_stage == "equiv" and rep.equiv_status == "counterexample"
    assert _opts(SHIFT.replace("assign y = ph[2];", "assign y = ^ph;"), "s") == []   # the code itself is read
