"""One evaluation job (eda.flow.FlowJob, Task.flow_job): regress and optimize judge a candidate alike."""
import shutil

import pytest

from designs import load_task
from designs.task import DESIGNS
from eda.flow import FlowJob, calibrate, evaluate
from rtl_agent.jobs.optimize import OptimizeConfig, OptimizeEnv
from rtl_agent.jobs.regress import score_design

pytestmark = pytest.mark.requires("iverilog", "vvp", "yosys", "sta")


def _cocotb_task(tmp_path):
    d = tmp_path / "adder16c"
    shutil.copytree(DESIGNS / "adder16", d)
    y = (d / "task.yaml").read_text().replace("testbench: tb.v", "testbench: test_adder16.py\nverdict: cocotb")
    (d / "task.yaml").write_text(y)
    return str(d)


def _judged(rep_like) -> tuple:
    return (rep_like["status"], rep_like["failed_stage"], rep_like["equiv"], rep_like["ppa"])


@pytest.mark.parametrize("kind", ["cocotb", "verilog-eval"])
def test_regress_and_optimize_judge_a_candidate_alike(tmp_path, kind):
    """The same candidate, through `regress --equiv` and through optimize's scoring, gets the same
    status, failing stage, equivalence verdict and PPA; optimize uses the task's verdict rule."""
    name = _cocotb_task(tmp_path) if kind == "cocotb" else "Prob050_kmap1"
    task = load_task(name)
    ref = "\n".join(task.reference_sources().values())
    wrong = ref.replace("a + b + cin", "a - b + cin") if kind == "cocotb" else \
        "module TopModule(input a, input b, input c, output out);\n assign out = a & b;\nendmodule\n"
    assert wrong != ref
    d = score_design(task, [("ref", {f"{task.top}.v": ref}, None), ("wrong", {f"{task.top}.v": wrong}, None)],
                     task.pdk, equiv=True)
    env = OptimizeEnv(OptimizeConfig(task=name), tmp_path / "run")
    env.open()
    assert env.job.verdict is not None and env.job.verdict.name == ("cocotb" if kind == "cocotb" else "verilog-eval")
    for row, code in zip(d["samples"], (ref, wrong)):
        rep = env._eval(code)
        mine = {"status": rep.status, "failed_stage": rep.failed_stage, "equiv": rep.equiv_status, "ppa": rep.ppa}
        assert _judged(mine) == _judged(row), (row, mine)
        if rep.stage("sim"):
            assert rep.stage("sim").data.get("verdict_rule") == env.job.verdict.name
    assert d["samples"][0]["func"] and not d["samples"][1]["func"]


def test_flow_job_reads_sources_and_calibrates(tmp_path):
    """A job is complete at construction (paths read into texts); calibrate keeps the simulator the
    reference passes with."""
    tb = tmp_path / "tb.v"
    shutil.copy(DESIGNS / "adder16" / "tb.v", tb)
    job = FlowJob(top="adder16", tb=[tb], stages=("lint", "sim"), use_cache=False)
    assert set(job.tb) == {"tb.v"} and isinstance(job.tb["tb.v"], str)
    task = load_task("adder16")
    cal_job, rep = calibrate(job, task.reference_sources())
    assert rep.ok and cal_job.simulators == (rep.stage("sim").data["simulator"],)
    assert cal_job.replace(pdk="sky130hd").simulators == cal_job.simulators
    with pytest.raises(TypeError, match="FlowJob"):
        evaluate(task.reference_sources(), "adder16")


@pytest.mark.requires("verilator")
def test_optimize_takes_the_simulator_its_reference_passes_with(tmp_path):
    """ring_counter's RTLLM testbench races under Icarus: regress calibrates to Verilator, and so does
    optimize now (it used to stop with "the reference does not pass its own flow")."""
    env = OptimizeEnv(OptimizeConfig(task="ring_counter"), tmp_path / "run")
    env.open()
    assert env.job.simulators == ("verilator",)
    assert env.ref_report.status == "pass" and env.ref_report.stage("equiv").status == "proven"
    assert env.ref_report.stage("sim").data["simulator"] == "verilator"
