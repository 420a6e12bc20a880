"""Designs as EDA tools take them (issue 49): file lists, -I/-D/-P, .sv, $display kept out of synthesis, large
memories, and a task made from design files. Real tools on small designs and two short corpus modules."""
import json
import subprocess
import sys
from pathlib import Path

import pytest

from designs import load_task
from designs.adhoc import write_task
from eda.config import require_shared
from eda.design_inputs import DesignInputError, gather, read_filelist
from eda.flow import FlowJob, evaluate

ROOT = Path(__file__).resolve().parent.parent
TOP = """`include "defs.vh"
module top #(parameter N = 2) (input logic clk, input logic [`W-1:0] a, output logic [`W-1:0] y);
  always_ff @(posedge clk) y <= a + N
`ifdef EXTRA
    + 8'd100
`endif
  ;
  initial if (N > 100) begin $error("N too large"); $finish; end
  initial $display("top: N=%0d", N);
endmodule
"""
MEM = """module mem(input clk, input we, input [11:0] wa, input [11:0] ra, input [7:0] d, output reg [7:0] q,
           output reg [7:0] n);
  reg [7:0] m [0:4095];
  always @(posedge clk) begin if (we) m[wa] <= d; q <= m[ra]; n <= n + we; end
endmodule
"""


def _design(tmp_path):
    (tmp_path / "inc").mkdir()
    (tmp_path / "inc" / "defs.vh").write_text("`define W 8\n")
    (tmp_path / "rtl").mkdir()
    (tmp_path / "rtl" / "top.sv").write_text(TOP)
    (tmp_path / "files.f").write_text("// the design\n+incdir+inc\nrtl/top.sv\n+define+EXTRA\n")
    return tmp_path / "files.f"


def test_filelist_defines_params_reach_every_stage(tmp_path):
    fl = _design(tmp_path)
    srcs, incs, defs = read_filelist(fl)
    assert [s.name for s in srcs] == ["top.sv"] and incs == [tmp_path / "inc"] and defs == {"EXTRA": "1"}
    texts = gather(filelists=[fl], params=["N=3"], top="top")
    assert list(texts)[0] == "rtla_defines.v" and "defs.vh" in texts and "parameter N = 3" in texts["top.sv"]
    rep = evaluate(FlowJob(top="top", use_cache=False, ref=texts), texts)
    assert rep.status == "pass", rep.failure_reason        # $display/$error/$finish: no unmapped $print cells
    assert rep.equiv_status.startswith("proven")
    # the define changes the circuit: without EXTRA the design differs (a counterexample)
    plain = gather([tmp_path / "rtl" / "top.sv"], incdirs=[tmp_path / "inc"], params={"N": "3"}, top="top")
    rep = evaluate(FlowJob(top="top", use_cache=False, ref=texts, stages=("lint", "equiv")), plain)
    assert rep.equiv_status == "counterexample"


def test_bad_design_input_is_one_line(tmp_path):
    fl = _design(tmp_path)
    (tmp_path / "bad.f").write_text("rtl/nope.v\n")
    cases = [dict(filelists=[tmp_path / "bad.f"]), dict(filelists=[fl], params=["M=1"], top="top"),
             dict(filelists=[fl], top="other"), dict(sources=[tmp_path / "rtl" / "top.sv"])]
    msgs = []
    for kw in cases:
        with pytest.raises(DesignInputError) as e:
            gather(**kw)
        msgs.append(str(e.value))
    assert "nope.v" in msgs[0] and "-P M" in msgs[1] and "--top other" in msgs[2] and "defs.vh" in msgs[3]
    (tmp_path / "two.v").write_text("module a(input x, output y); assign y = x; endmodule\n"
                                    "module b(input x, output y); assign y = ~x; endmodule\n")
    r = subprocess.run([sys.executable, "-m", "rtl_agent.cli", "eval", str(tmp_path / "two.v")], cwd=ROOT,
                       capture_output=True, text=True, timeout=120)
    assert r.returncode == 2 and r.stderr.count("\n") == 1 and "2 candidate tops (a, b)" in r.stderr


def test_large_memory_is_a_black_box_and_said(tmp_path):
    rep = evaluate(FlowJob(top="mem", stages=("synth", "sta"), use_cache=False), {"mem.v": MEM})
    st = rep.stages["synth"]
    assert rep.status == "pass" and st.data["memory_bits_not_in_ppa"] == 4096 * 8
    assert st.diagnostics[0].severity == "warning" and "not in PPA" in st.diagnostics[0].message
    assert 0 < rep.area_um2 < 500 and st.seconds < 30     # the rest only, and no flip-flop build of 32k bits
    assert rep.ppa > 0 and rep.stages["sta"].data["unconstrained_endpoints"] > 0    # the memory's own pins


def test_task_from_design_files(tmp_path):
    texts = gather([require_shared("corpus/verilog-axis/rtl/axis_register.v")], top="axis_register")
    write_task(texts, None, tmp_path / "t", origin="axis_register.v")
    t = load_task(tmp_path / "t")
    assert (t.top, t.clock, t.reset, t.golden_prefix) == ("axis_register", "clk", "rst", "ref_")
    rep = evaluate(t.flow_job(use_cache=False), t.reference_sources())
    assert rep.status == "pass" and rep.equiv_status.startswith("proven") and rep.stages["sim"].ok
    # the generated testbench is the fast screen: a wrong candidate fails simulation before any proof
    ref = t.reference_sources()
    name, code = next((n, c) for n, c in ref.items() if "m_axis_tvalid_reg <= " in c)
    bad = {name: code.replace("assign m_axis_tvalid = m_axis_tvalid_reg;", "assign m_axis_tvalid = 1'b0;")}
    assert bad[name] != code
    rep = evaluate(t.flow_job(use_cache=False), bad)
    assert rep.failed_stage == "sim" and "equiv" not in rep.stages
    # the CLI writes the same folder, and refuses to overwrite it
    out = tmp_path / "cli"
    argv = [sys.executable, "-m", "rtl_agent.cli", "task", "init",
            str(require_shared("corpus/verilog-axis/rtl/axis_fifo.v")), "-P", "DEPTH=16", "-o", str(out)]
    r = subprocess.run(argv, cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert r.returncode == 0 and "clock clk" in r.stdout, r.stderr
    assert "parameter DEPTH = 16" in (out / "rtl" / "axis_fifo.v").read_text()
    r = subprocess.run(argv, cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert r.returncode == 2 and "already there" in r.stderr


def test_corpus_switch_with_display_passes_eval():
    rtl = require_shared("corpus/verilog-axis/rtl")
    files = [rtl / f for f in ("axis_switch.v", "axis_register.v", "arbiter.v", "priority_encoder.v")]
    r = subprocess.run([sys.executable, "-m", "rtl_agent.cli", "eval", *map(str, files), "--json", "--no-cache"],
                       cwd=ROOT, capture_output=True, text=True, timeout=300)
    rep = json.loads(r.stdout)
    assert rep["status"] == "pass" and rep["top"] == "axis_switch" and rep["ppa"] > 0


def test_regress_takes_design_files(tmp_path):
    rtl = require_shared("corpus/verilog-axis/rtl/axis_fifo.v")
    env = {**__import__("os").environ, "PYTHONPATH": str(ROOT)}
    r = subprocess.run([sys.executable, "-m", "rtl_agent.cli", "regress", "--suite", str(rtl), "-P", "DEPTH=16",
                        "--policy", "reference", "--out", str(tmp_path / "reg")], cwd=tmp_path, env=env,
                       capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr[-1500:]
    assert "parameter DEPTH = 16" in (tmp_path / "runs/tasks/axis_fifo/rtl/axis_fifo.v").read_text()
    assert "pass@1 1.000" in r.stdout
