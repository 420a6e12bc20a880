"""A find is synthesized on the other PDK too (rtl_agent/jobs/optimize/cross.py), with real Yosys and OpenSTA."""
import json

import pytest

from designs import load_task
from eda.flow import calibrate
from rtl_agent.jobs.optimize.cross import cached_check, check, describe

SHIFT = "module dec_shift32 (input [31:0] x, input [4:0] sh, output [31:0] y);\n  assign y = x << sh;\nendmodule\n"
MUL = "module mult8 (input [7:0] a, input [7:0] b, output [15:0] p);\n  assign p = a * b;\nendmodule\n"
ADD = "module mult8 (input [7:0] a, input [7:0] b, output [15:0] p);\n  assign p = a + b;\nendmodule\n"


def _task(name):
    t = load_task(name)
    src = t.reference_sources()
    job, rep = calibrate(t.flow_job("nangate45"), src, against_itself=True)
    assert rep.ok, rep.failure_reason
    return t, src, job


@pytest.fixture(scope="module")
def mult8():
    return _task("mult8")


def test_a_shifter_find_holds_on_sky130_and_is_kept(tmp_path):
    t, src, job = _task("dec_shift32")
    c = cached_check(tmp_path, job, src, t.top, SHIFT)
    assert c["pdk"] == "sky130hd" and c["ratio"] > 1.1 and c["holds"] is True, c
    assert c["noise_floor"] >= 1.0 and c["ref_ppa"] > c["ppa"] > 0
    kept = json.loads((tmp_path / "cross_pdk.json").read_text())
    assert kept["key"] == c["key"] and kept["ratio"] == c["ratio"]
    assert "holds" in describe(c) and "NOT" not in describe(c)


def test_mult8s_star_gains_on_nangate45_only(mult8, tmp_path):
    """`a * b` is 1.587x the shift-and-add reference on Nangate45 (bench/results/headroom.md) and no better on Sky130."""
    t, src, job = mult8
    c = cached_check(tmp_path, job, src, t.top, MUL)
    assert c["ratio"] < 1.05 and c["holds"] is False, c
    assert "does NOT hold" in describe(c)


def test_a_design_that_fails_the_flow_does_not_hold(mult8):
    t, src, job = mult8
    c = check(job, src, t.top, ADD)          # not equivalent: the flow stops before synthesis
    assert c["holds"] is False and "ratio" not in c and c["why"].startswith("the design: fail"), c
    assert check(job.replace(pdk="gf180"), src, t.top, MUL)["pdk"] is None


def test_the_find_line_says_where_the_gain_holds(mult8, tmp_path):
    from rtl_agent.commands.optimize import find_line
    t, src, job = mult8
    s = {"best_source": "candidate", "best_ratio": 1.587, "noise_floor": 1.0, "above_noise": True,
         "best_proof": "proven", "best_kind": "spec", "cross_pdk": cached_check(tmp_path, job, src, t.top, MUL)}
    line = find_line(s, "runs/x/best.v")
    assert line.startswith("find: runs/x/best.v, PPA ratio 1.587x") and "on sky130hd it does NOT hold" in line
    assert "sky130" not in find_line({**s, "cross_pdk": None}, "b.v")
