"""Action kinds of optimize, the per-design bandit, and the noise floor (real tools, no model)."""
import random
import shutil
from types import SimpleNamespace
from pathlib import Path

import pytest

from rtl_agent.jobs.optimize import OptimizeConfig
from rtl_agent.jobs.optimize.actions import (Bandit, decl_ban, decl_head, decl_targets, narrow_options, narrow_target,
                                             narrow_widths, split)
from rtl_agent.jobs.optimize.kinds import names, parse_kinds
from rtl_agent.jobs.optimize.env import OptimizeEnv, bandit_reward
from rtl_agent.noise import add_zero, perturbations, rename, swap
from training.rows import Context

ROOT = Path(__file__).resolve().parent.parent
CODE = """module m (input clk, input [3:0] a, output reg [3:0] q);
  localparam S0 = 2'd0, S1 = 2'd1;
  reg [31:0] count;
  wire [7:0] sum;
  assign sum = a + q;
  always @(posedge clk) q <= sum[3:0];
endmodule
"""


KINDS = names(auto_only=True)


def test_parse_kinds_and_split():
    # the menu's order is the registry's: it decides the bandit's seeded draws, so it is pinned here
    assert parse_kinds("auto") == KINDS == ("transform", "spec", "rewrite", "diff", "decl", "line")
    assert names() == ("transform", "spec", "rewrite", "diff", "decl", "narrow", "line")
    assert parse_kinds("rewrite, decl") == ("rewrite", "decl")
    for bad in ("rewrite,bogus", "legacy", ""):        # "" and legacy were the removed single --edit action
        with pytest.raises(ValueError, match="unknown action kind"):
            parse_kinds(bad)
    assert split(4, 2) == [2, 2] and split(5, 2) == [3, 2] and split(1, 3) == [1]


def test_declaration_targets_and_heads():
    lines = CODE.splitlines()
    got = decl_targets(CODE)
    assert [lines[i].strip() for i in got] == ["localparam S0 = 2'd0, S1 = 2'd1;", "reg [31:0] count;",
                                                "wire [7:0] sum;"]      # ports and assignments are not
    assert decl_head(lines[2]) == "  reg [" and decl_head(lines[1]) == "  localparam S0 = "
    assert decl_ban(lines[2]) == ("31",) and decl_ban(lines[1]) == ("2'd0, S1 = 2'd1",)    # what may not be copied


def test_narrow_targets_and_the_widths_offered():
    assert narrow_target("    reg [31:0] cnt;      // cycles") == (32, ["cnt"])
    assert narrow_target("  reg [7:0] a, b;") == (8, ["a", "b"])
    for no in ("  reg signed [7:0] a;", "  reg [7:1] a;", "  reg [7:0] m [0:3];", "  wire [7:0] w;",
               "  reg [7:0] a = 0;", "  output reg [7:0] q;"):
        assert narrow_target(no) is None, no
    assert narrow_widths(32, 5) == [5, 6, 8] and narrow_widths(16, 2) == [2, 3] and narrow_widths(6, 5) == [5]
    assert narrow_widths(5, 5) == [] and narrow_widths(8, 7) == [7]
    assert narrow_options("    reg [31:0] cnt;  // c", [5, 6]) == ["4:0] cnt;  // c", "5:0] cnt;  // c"]


def test_bandit_tries_every_kind_then_prefers_the_rewarded_one():
    b = Bandit(KINDS, c=0.1, first=())
    first = b.choose(len(KINDS), random.Random(0))
    assert sorted(first) == sorted(KINDS)           # untried kinds first, all distinct
    assert first == Bandit(KINDS, c=0.1, first=()).choose(len(KINDS), random.Random(0))   # seeded: resumes agree
    for k in KINDS:
        b.update(k, 0.5 if k == "decl" else -0.8, valid=k == "decl", find=k == "decl")
    assert b.choose(1, random.Random(1)) == ["decl"]
    again = Bandit(KINDS, 0.1, b.to_dict())
    assert again.to_dict() == b.to_dict() and again.stats["decl"]["finds"] == 1
    # by default the library's choices are pinned: every parent gets a transform group, the bandit picks the rest
    assert again.choose(2, random.Random(1)) == ["transform", "decl"]


def test_perturbations_keep_ports_and_change_text():
    p = perturbations(CODE)
    assert set(p) >= {"rename", "commute", "all"}
    assert "count" not in rename(CODE) and "input [3:0] a" in rename(CODE) and "output reg [3:0] q" in rename(CODE)
    assert swap("a + b + cin") == "b + a + cin"     # association kept: no new adder tree
    assert swap("a - b") is None
    assert "assign sum = (a + 1'b0) + q;" in p["neutral"] and "q <= sum[3:0];" in p["neutral"]
    assert add_zero("a * b | c") == "(a * b | 1'b0) | c" and add_zero("a - b") is None and add_zero("s ? a : b") is None


@pytest.fixture(scope="module")
def env(tmp_path_factory):
    d = tmp_path_factory.mktemp("task") / "cnt"
    shutil.copytree(ROOT / "designs" / "counter8", d)
    ref = (d / "reference.v").read_text().replace(
        "    always @(posedge clk)", "    wire [15:0] inc;\n    assign inc = q + 8'd1;\n    always @(posedge clk)", 1)
    (d / "reference.v").write_text(ref.replace("q <= q + 8'd1;", "q <= inc[7:0];"))
    e = OptimizeEnv(OptimizeConfig(task=str(d), group=4, kinds_per_parent=5), d / "run")
    ctx = Context(d / "run", lambda kind, **data: None)
    e.open(ctx)
    e.start(ctx)
    return e, ctx


def test_noise_floor_measured_on_open(env):
    e, _ = env
    assert e.noise.floor >= 1.0
    assert e.noise.ratios and not e.noise.failed, e.noise.to_dict()   # every perturbation proven equivalent
    assert e.noise.above(e.noise.floor * 1.01) and not e.noise.above(e.noise.floor)


def test_groups_mix_kinds_and_a_decl_edit_applies(env):
    e, ctx = env
    assert "narrow" not in e.kinds      # no internal register with headroom: the kind is not offered
    gs = e.groups(ctx, 1)
    kinds = [g.info["action_kind"] for g in gs]
    assert len(gs) == 4 and len(set(kinds)) == 4 and kinds[0] == "transform"
    # the free-text kinds split G = 4 (4 kinds: 1 each); the choice kind draws choice_group answers
    assert [g.n for g in gs] == [e.cfg.choice_group, 1, 1, 1]
    e.cfg.kinds_per_parent = 5
    e.bandit = Bandit(("decl",), 0.5)
    (g,) = e.groups(ctx, 1)
    assert g.info["action_kind"] == "decl" and g.stop == "\n" and g.ban == ("15",)     # the old MSB
    assert g.prefill.endswith("wire [15:0] inc;\n=======\n    wire [")
    cand = e.extract(g.prefill + "8:0] inc;", g)
    assert "wire [8:0] inc;" in cand.value["code"] and cand.value["applied"]
    spec = e.kit.spec_group(g.parent, 2)
    assert spec.info["action_kind"] == "spec" and "Current design" not in spec.prompt[-1]["content"]


def test_narrow_offers_the_widths_the_testbench_leaves_room_for(tmp_path):
    """wide_count's 32-bit cycle counter reaches 24 and its 16-bit phase 2 under the testbench: a narrow group
    names one of them, its choices are the tight width, a spare bit and the next power of two, and a choice
    applies as a one-line declaration edit."""
    e = OptimizeEnv(OptimizeConfig(task="wide_count", group=3, kinds_per_parent=1, noise=False, actions="narrow,decl"),
                    tmp_path / "run")
    ctx = Context(tmp_path / "run", lambda kind, **data: None)
    e.open(ctx)
    e.start(ctx)
    assert "narrow" in e.kinds and e.ranges["cnt"].bits == 5 and e.ranges["ph"].bits == 2
    ref = e.pool_[e.pool_.root].payload["code"]
    lines = ref.splitlines()
    assert {lines[i].split("//")[0].strip(): w for i, w in e.kit.narrow_lines(ref).items()} == \
        {"reg [31:0] cnt;": [5, 6, 8], "reg [15:0] ph;": [2, 3]}
    e.bandit = Bandit(("narrow",), 0.5)
    (g,) = e.groups(ctx, 1)
    assert g.info["action_kind"] == "narrow" and g.stop == "\n" and g.choices and g.info["choices"] == list(g.choices)
    cand = e.extract(g.prefill + g.choices[0] + "\n", g)
    assert cand.value["applied"] and cand.value["code"] != ref
    assert any(x in cand.value["code"] for x in ("reg [4:0] cnt;", "reg [1:0] ph;"))
    narrowed = ref.replace("reg [31:0] cnt;", "reg [4:0] cnt;").replace("reg [15:0] ph;", "reg [1:0] ph;")
    assert e.kit.narrow_lines(narrowed) == {}
    g = e._kind_group(SimpleNamespace(payload={"code": narrowed, "report": None}), e.pool_.root, 5, "narrow", 3)
    assert g.info["action_kind"] == "decl" and not g.choices     # nothing left to narrow: a free decl edit


def test_a_small_context_keeps_the_design_whole_with_a_brief_report(env):
    """A 1024-token window (a small served model): the path and cell lines go before the design does,
    and the prefill, which the server counts as input, is inside the budget."""
    from rtl_agent.policy.base import Policy
    e, _ = env
    root = e.pool_[e.pool_.root]
    small = type("Small", (Policy,), {"context_window": 1024, "prefill_ok": True})()
    old, e.policy = e.policy, small
    try:
        wide = e._kind_group(root, e.pool_.root, 1, "rewrite", 1)
        full = wide.prompt[-1]["content"]
        small.context_window = wide.info["prompt_tokens"] + e.cfg.max_tokens + 16 - 20
        g = e._kind_group(root, e.pool_.root, 1, "rewrite", 1)
    finally:
        e.policy = old
    text = g.prompt[-1]["content"]
    assert "Path (sta)" in full and "Path (sta)" not in text and "Cells by type" not in text
    assert g.info["mode"] == "whole" and "Current design" in text
    assert g.info["prompt_tokens"] <= g.info["budget"]
    assert g.info["prompt_tokens"] == small.count_tokens(g.prompt + [{"role": "assistant", "content": g.prefill}])


def test_a_copy_of_the_parent_earns_the_bandit_nothing():
    from rtl_agent.jobs.optimize.config import PENALTIES
    from training.rows import Row
    dup, lint = Row("x", -0.3, "duplicate", "duplicate"), Row("y", -0.8, "fail", "lint")
    assert bandit_reward(dup, PENALTIES) == -1.0 < bandit_reward(lint, PENALTIES) == -0.8
