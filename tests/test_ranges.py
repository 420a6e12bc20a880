"""Value ranges of a design's registers under its testbench (eda/ranges.py), and how optimize uses them:
edit prompts name registers declared wider than their values, and decl edits go to those first (real Icarus,
Yosys and OpenSTA; no model)."""
import shutil
from pathlib import Path

import pytest

from designs import load_task
from eda.ranges import declared, probe, value_ranges
from rtl_agent.jobs.optimize import OptimizeConfig
from rtl_agent.jobs.optimize.actions import Bandit
from rtl_agent.jobs.optimize.env import OptimizeEnv
from training.rows import Context

ROOT = Path(__file__).resolve().parent.parent


def test_only_internal_vectors_are_probed():
    code = """module m (clk, y, input [1:0] s, output reg [7:0] q);
  input clk;
  output [3:0] y;
  reg [3:0] y;
  reg [31:0] cnt, other; // two at once
  reg [7:0] mem [0:3];
  reg flag;
  wire [7:0] w;
  always @(posedge clk) cnt <= cnt + 1;
endmodule
module other (input a); reg [9:0] inner; endmodule
"""
    assert declared(code, "m") == {"cnt": 32, "other": 32}     # not ports, arrays, scalars, wires or other modules
    probed, names = probe(code, "m")
    assert names == {"cnt": 32, "other": 32}
    assert probed.count("final $display") == 2 and probed.index("RTLA_RANGE") < probed.index("endmodule")
    assert probed.endswith("module other (input a); reg [9:0] inner; endmodule\n")


def test_wide_count_registers_reach_a_few_values():
    t = load_task("wide_count")
    r = value_ranges(t.flow_job(t.pdk), t.reference_sources())
    assert set(r) == {"cnt", "ph"}
    assert (r["cnt"].width, r["cnt"].lo, r["cnt"].hi, r["cnt"].values, r["cnt"].bits) == (32, 0, 24, 25, 5)
    assert (r["ph"].width, r["ph"].hi, r["ph"].bits, r["ph"].slack()) == (16, 2, 2, 14)
    assert "fit in 5 bits" in r["cnt"].text("cnt")


def test_a_failing_testbench_gives_no_ranges():
    t = load_task("wide_count")
    broken = {f: s.replace("32'd24", "32'd23") for f, s in t.reference_sources().items()}
    assert value_ranges(t.flow_job(t.pdk), broken) == {}


@pytest.fixture(scope="module")
def env(tmp_path_factory):
    d = tmp_path_factory.mktemp("task") / "wc"
    shutil.copytree(ROOT / "designs" / "wide_count", d)
    e = OptimizeEnv(OptimizeConfig(task=str(d), group=4, noise=False, kinds_per_parent=1), d / "run")
    ctx = Context(d / "run", lambda kind, **data: None)
    e.open(ctx)
    e.start(ctx)
    e.bandit = Bandit(("decl",), 0.5)
    return e, ctx


def test_decl_edits_go_to_registers_with_headroom_and_the_prompt_says_why(env):
    e, ctx = env
    assert set(e.ranges) == {"cnt", "ph"}
    gs = [e.groups(ctx, s)[0] for s in range(1, 7)]
    assert all(g.info["action_kind"] == "decl" for g in gs)
    assert {g.ban for g in gs} == {("31",), ("15",)}             # both registers, each with its old MSB banned
    text = gs[0].prompt[-1]["content"]
    assert "Register values in simulation:" in text and "`cnt` is declared 32 bits" in text
    assert "0..24 (they fit in 5 bits: [4:0])" in text and "`ph` is declared 16 bits" in text
    # a parent that already narrowed cnt is told only about ph
    narrow = e.pool_[e.pool_.root].payload["code"].replace("reg [31:0] cnt;", "reg [4:0] cnt;")
    assert set(e.kit.slack(narrow)) == {"ph"}


def test_no_ranges_no_note(env):
    e, ctx = env
    saved, e.ranges = e.ranges, {}
    try:
        (g,) = e.groups(ctx, 1)
    finally:
        e.ranges = saved
    assert "Register values in simulation" not in g.prompt[-1]["content"]
