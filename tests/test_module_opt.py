"""optimize --module NAME (issue #59 item 2): one submodule optimized in its hierarchy, with its instance's
parameters, proven against the original submodule, and the whole design's PPA before and after. Real tools
(slang, Yosys, OpenSTA, Icarus) and, in the slow test, the bundled model."""
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from eda.design_inputs import DesignInputError
from eda.flow import FlowJob, evaluate
from rtl_agent.jobs.optimize import hier

ROOT = Path(__file__).resolve().parent.parent

# a sequencer whose counter is declared far wider than it counts (its instance counts to 20, its default to 9),
# beside an accumulator, under a top
DUO = """// two levels
module seq #(parameter LAST = 9) (input clk, input rst, input en, output [4:0] count, output tick);
    reg [31:0] cnt;
    wire last = (cnt == LAST);
    always @(posedge clk) begin
        if (rst) cnt <= 32'd0;
        else if (en) cnt <= last ? 32'd0 : cnt + 32'd1;
    end
    assign tick  = en & last;
    assign count = cnt[4:0];
endmodule

module acc (input clk, input rst, input [7:0] d, output reg [7:0] q);
    always @(posedge clk) q <= rst ? 8'd0 : q + d;
endmodule

module duo (input clk, input rst, input en, input [7:0] d, output [4:0] count, output tick, output [7:0] q);
    seq #(.LAST(20)) u_seq (.clk(clk), .rst(rst), .en(en), .count(count), .tick(tick));
    acc u_acc (.clk(clk), .rst(rst), .d(d), .q(q));
endmodule
"""


def _cli(args, cwd):
    env = dict(os.environ, PYTHONPATH=str(ROOT), OMP_NUM_THREADS="1")
    return subprocess.run([sys.executable, "-m", "rtl_agent.cli", *args], cwd=cwd, env=env, capture_output=True,
                          text=True, timeout=900)


def test_the_submodule_is_cut_out_with_its_instance_parameters_and_put_back():
    texts = {"duo.v": DUO}
    insts = hier.instances(texts, "duo")
    assert [(i.path, i.module) for i in insts] == [("duo.u_seq", "seq"), ("duo.u_acc", "acc")]
    sub, ps = hier.extract(texts, insts, "seq", "duo")
    assert ps == {"LAST": "20"}
    (code,) = sub.values()
    assert "module seq #(parameter LAST = 20)" in code and "module acc" not in code and "module duo" not in code
    assert code.startswith("// two levels")        # the file's header (defines, timescale) comes along
    new = hier.splice(texts, code.replace("reg [31:0] cnt", "reg [4:0] cnt"))["duo.v"]
    assert "reg [4:0] cnt" in new and "module acc (input clk" in new and new.count("module ") == 3
    # the spliced core means what the original does (proven by the flow's equivalence stage)
    rep = evaluate(FlowJob(top="duo", ref={"duo.v": DUO}, stages=("equiv",)), {"duo.v": new})
    assert rep.ok and rep.equiv_status.startswith("proven"), rep.failure_reason


def test_a_module_instantiated_with_two_parameter_sets_is_refused():
    two = DUO.replace("acc u_acc", "seq #(.LAST(7)) u_seq2 (.clk(clk), .rst(rst), .en(en), .count(), .tick());\n"
                      "    acc u_acc")
    texts = {"duo.v": two}
    with pytest.raises(DesignInputError, match="u_seq and duo.u_seq2 set different parameters"):
        hier.extract(texts, hier.instances(texts, "duo"), "seq", "duo")


def test_an_unknown_module_is_a_one_line_error(tmp_path):
    (tmp_path / "duo.v").write_text(DUO)
    r = _cli(["optimize", "duo.v", "--top", "duo", "--module", "nosuch", "--quiet"], tmp_path)
    assert r.returncode == 2
    assert r.stderr.strip() == "rtl-agent: error: --module nosuch: no instance of it below duo (submodules: seq, acc)"


@pytest.mark.slow
def test_module_rewrites_only_the_child_and_reports_the_core(tmp_path):
    (tmp_path / "duo.v").write_text(DUO)
    out = tmp_path / "run"
    r = _cli(["optimize", "duo.v", "--top", "duo", "--module", "seq", "--steps", "1", "--actions", "transform",
              "--chooser", "exhaustive", "--transforms", "narrow", "--no-noise", "--no-cross-pdk", "--no-pnr",
              "--quiet", "--out", str(out)], tmp_path)
    assert r.returncode == 0, r.stderr[-2000:]
    res = json.loads((out / "hier.json").read_text())
    (row,) = res["modules"]
    assert row["module"] == "seq" and row["params"] == {"LAST": "20"} and row["proof"].startswith("proven")
    assert row["accepted"] and row["module_ratio"] > 1.0
    assert res["after"]["ppa"] < res["before"]["ppa"] and res["ratio"] > 1.0
    # the child's task holds the child alone, so its proof was against the original child
    (child,) = (out / "tasks" / "seq" / "rtl").glob("*.v")
    assert "module acc" not in child.read_text() and "module duo" not in child.read_text()
    core = (out / "core" / "duo.v").read_text()
    assert "reg [4:0] cnt" in core and "module acc (input clk" in core
    assert f"core duo: PPA {res['before']['ppa']:.4g} -> {res['after']['ppa']:.4g}" in r.stdout
    rep = evaluate(FlowJob(top="duo", ref={"duo.v": DUO}, stages=("equiv",)), {"duo.v": core})
    assert rep.ok and rep.equiv_status.startswith("proven"), rep.failure_reason


def test_instances_in_a_generate_loop_have_their_own_paths():
    loop = DUO.replace("    seq #(.LAST(20)) u_seq", "    genvar i;\n"
                       "    generate for (i = 0; i < 2; i = i + 1) begin : g\n"
                       "        seq #(.LAST(20)) u_seq (.clk(clk), .rst(rst), .en(en), .count(), .tick());\n"
                       "    end endgenerate\n    seq #(.LAST(20)) u_seq")
    insts = hier.instances({"duo.v": loop}, "duo")
    assert [i.path for i in insts if i.module == "seq"] == ["duo.g[0].u_seq", "duo.g[1].u_seq", "duo.u_seq"]
