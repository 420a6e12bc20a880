"""SystemVerilog as teams write it through eval, equiv and a task (what optimize and cover read), issue #59 item 3:
Icarus 11 cannot read it, so the design inputs lower it (eda.sv_lower: Yosys read_slang, then write_verilog).
Real tools: Icarus, Verilator, Yosys, OpenSTA."""
import pytest

from eda.config import require_shared
from eda.design_inputs import DesignInputError, gather
from eda.flow import FlowJob, calibrate, evaluate
from eda.lint import lint
from eda.observe import equivalence
from eda.report import is_proven
from eda.sv_lower import lower_if_needed

# the constructs of the issue in one small design: a package with a typedef enum and a function, `import`,
# $clog2 and a localparam in a port width, packed multi-dimensional arrays, always_ff/always_comb/always_latch,
# logic, '0/'1, a declaration initializer, unique and priority case, a cast
PKG = """package demo_pkg;
  typedef enum logic [1:0] {IDLE, RUN, DONE} state_e;
  localparam int unsigned W = 4;
  function automatic int unsigned cnt_w(input int unsigned n);
    return $clog2(n + 1);
  endfunction
endpackage
"""
DEMO = """module demo import demo_pkg::*; #(
  parameter int unsigned N = 3,
  localparam int unsigned CW = cnt_w(N)
) (
  input  logic clk_i, rst_ni, en_i,
  input  logic [N-1:0][W-1:0] d_i,
  output logic [CW-1:0] cnt_o,
  output logic [W-1:0] sel_o,
  output logic busy_o
);
  state_e state_q, state_d;
  logic [CW-1:0] cnt_q;
  logic [W-1:0] hold;
  logic seen = 1'b0;
  always_comb begin
    state_d = state_q;
    unique case (state_q)
      IDLE: if (en_i) state_d = RUN;
      RUN: if (cnt_q == CW'(N - 1)) state_d = DONE;
      default: state_d = IDLE;
    endcase
  end
  always_ff @(posedge clk_i or negedge rst_ni)
    if (!rst_ni) begin
      state_q <= IDLE;
      cnt_q <= '0;
    end else begin
      state_q <= state_d;
      cnt_q <= (state_q == RUN) ? cnt_q + 1'b1 : '0;
    end
  always_latch if (state_q == IDLE) hold = d_i[0];
  always_comb begin
    sel_o = '1;
    priority case (1'b1)
      en_i: sel_o = d_i[N-1];
      busy_o: sel_o = hold;
      default: ;
    endcase
  end
  assign busy_o = state_q != IDLE;
  assign cnt_o = cnt_q;
endmodule
"""


def _files(tmp_path):
    (tmp_path / "demo_pkg.sv").write_text(PKG)
    (tmp_path / "demo.sv").write_text(DEMO)
    return [tmp_path / "demo_pkg.sv", tmp_path / "demo.sv"]


def test_the_constructs_of_the_issue_go_through_every_job(tmp_path):
    files = _files(tmp_path)
    raw = gather(files, top="demo", lower=False)
    st = lint(raw, "demo")                             # Icarus 11 cannot read the package; the error says what
    assert st.status == "fail" and (st.diagnostics[0].file, st.diagnostics[0].line) == ("demo_pkg.sv", 3)
    assert st.diagnostics[0].message == "syntax error at `localparam int unsigned W = 4;`"
    texts = gather(files, top="demo")
    assert list(texts) == ["demo.v"] and "lowered from demo_pkg.sv, demo.sv" in texts["demo.v"]
    assert "rtla-svlower" not in texts["demo.v"]       # no temporary folder in the text: the same text each time
    assert gather(files, top="demo") == texts
    # optimize and cover read a task folder made from the design (rtl-agent task init); optimize's baseline is
    # the reference judged against itself: lint, its random testbench, interface, equivalence, synthesis, timing
    from designs import load_task
    from designs.adhoc import write_task
    task = load_task(write_task(texts, "demo", tmp_path / "task"))
    assert [p.name for p in task.ports] == ["clk_i", "rst_ni", "en_i", "d_i", "cnt_o", "sel_o", "busy_o"]
    assert task.clock == "clk_i" and task.reset == "rst_ni"
    _, rep = calibrate(task.flow_job(stages=("lint", "sim", "equiv", "synth", "sta"), use_cache=False),
                       task.reference_sources(), against_itself=True)
    assert rep.status == "pass" and is_proven(rep.equiv_status) and rep.ppa > 0, rep.failure_reason
    assert rep.stages["sim"].status == "pass"


@pytest.mark.parametrize("top", ["cc_counter", "cc_lzc"])
def test_common_cells_modules_pass_eval_and_equal_themselves(top):
    # cc_counter: `include macros (always_ff in registers.svh), a submodule; cc_lzc: cc_pkg functions, `import`,
    # packed arrays, $clog2 (bench/sv_modules.py runs 15)
    cc = require_shared("corpus/common_cells")
    files = {"cc_counter": ["cc_counter.sv", "cc_delta_counter.sv"], "cc_lzc": ["cc_pkg.sv", "cc_lzc.sv"]}[top]
    texts = gather([cc / "src" / f for f in files], incdirs=[cc / "include"], top=top)
    assert list(texts) == [f"{top}.v"]
    rep = evaluate(FlowJob(top=top, use_cache=False), texts)
    assert rep.status == "pass" and rep.ppa > 0, rep.failure_reason
    st = equivalence(texts, texts, top, None, timeout_s=120)
    assert is_proven(st.status), st.status


def test_a_design_the_tools_read_is_not_lowered():
    plain = {"p.v": "module p(input [3:0] a, output [3:0] y);\n  assign y = ~a;\nendmodule\n"}
    assert lower_if_needed(plain, "p") is plain
    # an error in the design stays the design's: lint reports it, as before
    bad = {"b.sv": "module b #(parameter type T = logic [7:0]) (input T a, output T y);\n  assign y = a + nope;\n"
                   "endmodule\n"}
    assert lower_if_needed(bad, "b") is bad
    assert lint(bad, "b").status == "fail"


def test_a_construct_nothing_reads_names_file_line_and_construct(tmp_path):
    # Icarus 11 cannot read a type parameter, and the lowering does not implement a conversion to real
    (tmp_path / "u.sv").write_text("""module u #(parameter type T = logic [7:0]) (input logic clk, input T a, output T y);
  real r;
  always_ff @(posedge clk) begin
    r <= a * 1.5;
    y <= T'($rtoi(r));
  end
endmodule
""")
    with pytest.raises(DesignInputError) as e:
        gather([tmp_path / "u.sv"], top="u")
    msg = str(e.value)
    assert msg.startswith("u.sv:4: Conversion of type real") and "Icarus 11 cannot read it: u.sv:1" in msg
    assert "\n" not in msg


def test_equiv_command_reads_systemverilog(tmp_path, capsys):
    from rtl_agent.cli import main
    files = [str(f) for f in _files(tmp_path)]
    assert main(["equiv", *files, "--ref", *files, "--top", "demo", "--json"]) == 0
    assert '"status": "proven' in capsys.readouterr().out
