"""Sequential equivalence with hand-written pairs and the real tools (Yosys SAT, yosys-abc, Icarus):
re-encoded state and retiming are proven, a bug that shows only after 2^16 cycles is refuted with a
replayed counterexample, memories are proven, counters of different widths are proven by PDR, bugs
in references Yosys cannot read are found by deep co-simulation, and a SAT counterexample Icarus
does not reproduce is unknown(replay-mismatch), never a pass."""
from designs import load_task
from eda.equiv import equivalence
from eda.report import is_pass, is_proven

T = 60      # generous: the machine running the tests may be loaded

FSM_BIN = """
module det(input clk, input rst, input x, output z);
  // detects 1,0,1 (overlapping); binary state encoding
  reg [1:0] s;
  always @(posedge clk)
    if (rst) s <= 2'd0;
    else case (s)
      2'd0: s <= x ? 2'd1 : 2'd0;
      2'd1: s <= x ? 2'd1 : 2'd2;
      2'd2: s <= x ? 2'd3 : 2'd0;
      default: s <= x ? 2'd1 : 2'd2;
    endcase
  assign z = (s == 2'd3);
endmodule
"""

FSM_ONEHOT = """
module det(input clk, input rst, input x, output z);
  reg [3:0] h;   // one-hot: h[0] idle, h[1] seen 1, h[2] seen 10, h[3] seen 101
  always @(posedge clk)
    if (rst) h <= 4'b0001;
    else begin
      h[0] <= ~x & (h[0] | h[2]);
      h[1] <= x & (h[0] | h[1] | h[3]);
      h[2] <= ~x & (h[1] | h[3]);
      h[3] <= x & h[2];
    end
  assign z = h[3];
endmodule
"""

CNT_BIN = """
module cnt(input clk, input rst, input en, output reg [15:0] q);
  always @(posedge clk) if (rst) q <= 16'd0; else if (en) q <= q + 16'd1;
endmodule
"""

CNT_GRAY = """
module cnt(input clk, input rst, input en, output [15:0] q);
  reg [15:0] g;               // Gray-coded state, decoded to binary at the output
  reg [15:0] b;
  integer i;
  always @* begin
    b[15] = g[15];
    for (i = 14; i >= 0; i = i - 1) b[i] = b[i + 1] ^ g[i];
  end
  wire [15:0] n = b + 16'd1;
  always @(posedge clk) if (rst) g <= 16'd0; else if (en) g <= n ^ (n >> 1);
  assign q = b;
endmodule
"""

# wraps to 1 instead of 0: visible only at cycle 65536 after reset (issue #12's example)
CNT_WRAP_BUG = """
module cnt(input clk, input rst, input en, output reg [15:0] q);
  always @(posedge clk) if (rst) q <= 16'd0; else if (en) q <= (q == 16'hffff) ? 16'd1 : q + 16'd1;
endmodule
"""

PIPE = """
module pipe(input clk, input rst, input [7:0] a, input [7:0] b, input [7:0] c, output reg [7:0] y);
  reg [7:0] s, cd;
  always @(posedge clk)
    if (rst) begin s <= 0; cd <= 0; y <= 0; end
    else begin s <= a + b; cd <= c; y <= s ^ cd; end
endmodule
"""

PIPE_RETIMED = """
module pipe(input clk, input rst, input [7:0] a, input [7:0] b, input [7:0] c, output reg [7:0] y);
  reg [7:0] ad, bd, cd;        // the adder moved behind the first register stage
  always @(posedge clk)
    if (rst) begin ad <= 0; bd <= 0; cd <= 0; y <= 0; end
    else begin ad <= a; bd <= b; cd <= c; y <= (ad + bd) ^ cd; end
endmodule
"""


def test_binary_vs_onehot_fsm_proven():
    st = equivalence({"c.v": FSM_ONEHOT}, {"r.v": FSM_BIN}, "det", clock="clk", reset="rst", timeout_s=T)
    assert st.status == "proven", (st.status, st.diagnostics)


def test_binary_vs_gray_counter_proven():
    st = equivalence({"c.v": CNT_GRAY}, {"r.v": CNT_BIN}, "cnt", clock="clk", reset="rst", timeout_s=T)
    assert st.status == "proven", (st.status, st.diagnostics)


def test_retimed_pipeline_proven():
    st = equivalence({"c.v": PIPE_RETIMED}, {"r.v": PIPE}, "pipe", clock="clk", reset="rst", timeout_s=T)
    assert st.status == "proven", (st.status, st.diagnostics)


def test_bug_after_2_16_cycles_is_a_replayed_counterexample():
    st = equivalence({"c.v": CNT_WRAP_BUG}, {"r.v": CNT_BIN}, "cnt", clock="clk", reset="rst", timeout_s=T)
    assert st.status == "counterexample", (st.status, st.diagnostics, st.data.get("abc"))
    cex = st.data["counterexample"]
    assert cex["cycle"] >= 1 << 16 and "replayed in icarus" in cex["found_by"], cex
    assert cex["outputs"]["q"] == {"candidate": "1", "reference": "0"}
    msg = st.diagnostics[0].message
    assert f"at cycle {cex['cycle']}" in msg and "q is 1, reference gives 0" in msg
    assert len(cex["inputs"]) <= 32 and "inputs_omitted" in cex     # a long trace is summarised, not dumped


FREE_CNT = """
module fcnt(input clk, input rst, output reg [15:0] q);
  always @(posedge clk) if (rst) q <= 16'd0; else q <= q + 16'd1;
endmodule
"""
FREE_CNT_BUG = FREE_CNT.replace("q <= q + 16'd1", "q <= (q == 16'hffff) ? 16'd1 : q + 16'd1")


def test_deep_bug_with_all_zero_inputs_replays_every_cycle():
    """After reset every input is 0: the ABC trace must still replay all 65536+ cycles."""
    st = equivalence({"c.v": FREE_CNT_BUG}, {"r.v": FREE_CNT}, "fcnt", clock="clk", reset="rst", timeout_s=T)
    assert st.status == "counterexample", (st.status, st.diagnostics, st.data.get("replay_mismatch"))
    assert st.data["counterexample"]["cycle"] >= 1 << 16


def test_memory_design_proven_against_itself():
    """RTLLM's RAM (a memory without reset): SAT induction does not close; ABC dprove does."""
    t = load_task("RAM")
    ref = t.reference_sources()
    st = equivalence(ref, ref, t.top, clock=t.clock, reset=t.reset, reset_active_low=t.reset_active_low,
                     timeout_s=T)
    assert st.status == "proven", (st.status, st.diagnostics, st.data.get("abc"))


# The reference leaves `y` undefined when sel=0 (x); SAT reads that x as 0 and finds a difference
# with any b != 0, while Icarus treats the reference's x as don't-care and sees none.
X_REF = """
module xs(input sel, input [31:0] a, input [31:0] b, output [31:0] y);
  assign y = sel ? a : 32'bx;
endmodule
"""
X_CAND = """
module xs(input sel, input [31:0] a, input [31:0] b, output [31:0] y);
  assign y = sel ? a : b;
endmodule
"""


def test_sat_counterexample_icarus_does_not_reproduce_is_unknown_replay_mismatch():
    st = equivalence({"c.v": X_CAND}, {"r.v": X_REF}, "xs", timeout_s=T)
    assert st.status == "unknown(replay-mismatch)", (st.status, st.diagnostics)
    assert not is_pass(st.status) and not is_proven(st.status)
    mm = st.data["replay_mismatch"]
    assert mm["found_by"] == "sat" and mm["sat_trace"], mm        # the SAT trace is kept
    assert mm["replay"]["ok"] and mm["replay"]["mismatch"] is None   # and what the replay said
    assert mm["replay"]["reference_x"]["output"] == "y"              # and why: the reference's y is x there
    assert "does not reproduce" in st.diagnostics[0].message and "leaves undefined" in st.diagnostics[0].message


def _rtllm(name, old, new):
    t = load_task(name)
    ref = t.reference_sources()
    (f, text), = ref.items()
    assert old in text
    return t, ref, {f: text.replace(old, new, 1)}


def test_narrower_counter_proven_by_pdr():
    """freq_div's 0..49 counter in 6 bits instead of 7: induction does not close (values 50..127 are
    unreachable); ABC proves it. With Yosys 0.23's AIGER export dprove did not finish and PDR found the
    invariant; the export of Yosys 0.70 (pyosys) is one that dprove proves in about 0.1 s (PDR proves
    either export in 0.3 s), so the proof is dprove's unless it runs out of its time share."""
    t, ref, cand = _rtllm("freq_div", "reg [6:0] cnt_100", "reg [5:0] cnt_100")
    st = equivalence(cand, ref, t.top, clock=t.clock, reset=t.reset, reset_active_low=t.reset_active_low, timeout_s=T)
    assert st.status == "proven" and st.data["method"] in ("abc-dprove", "abc-pdr"), \
        (st.status, st.diagnostics, st.data.get("abc"))


def test_unreadable_reference_deep_cosim_finds_field_corner_bug():
    """float_multi's reference has `always @(counter)` blocks Yosys rejects. The bug (inf * a power of
    two gives NaN) needs an all-ones exponent and a zero mantissa: field-wise corner values find it."""
    t, ref, cand = _rtllm("float_multi", "(($signed(a_exponent) == -127) && (a_mantissa == 0)) begin //NAN IF A",
                          "(($signed(a_exponent) != -127) && (a_mantissa == 0)) begin //NAN IF A")
    st = equivalence(cand, ref, t.top, clock=t.clock, reset=t.reset, reset_active_low=t.reset_active_low, timeout_s=T)
    assert st.status == "counterexample" and st.data["method"] == "cosim", (st.status, st.diagnostics)
    assert "z is" in st.diagnostics[0].message


def test_unreadable_reference_two_resets_deep_cosim():
    """synchronizer: two clocks, two resets; the wrong reset value of data_reg shows only when the
    other reset stays inactive long enough for the enable to pass two flops."""
    t, ref, cand = _rtllm("synchronizer", "if(!arstn)\tdata_reg <= 0;", "if(!arstn)\tdata_reg <= 1;")
    st = equivalence(cand, ref, t.top, clock=t.clock, reset=t.reset, reset_active_low=t.reset_active_low, timeout_s=T)
    assert st.status == "counterexample" and st.data["method"] == "cosim", (st.status, st.diagnostics)
    st = equivalence(ref, ref, t.top, clock=t.clock, reset=t.reset, reset_active_low=t.reset_active_low, timeout_s=T)
    assert st.status == f"cosim({(1 << 17) + 64} vectors)" and not is_proven(st.status), st.status
