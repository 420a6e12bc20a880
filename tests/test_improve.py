"""Improvement pairs (rtl_agent.jobs.sft.improve): only proven, >= 1.10x better pairs, in the optimize job's
prompt formats, and the bench/headroom rewrites refused as data."""
import re
import shutil

import pytest

from designs.evalsets import HEADROOM
from eda.report import Report
from rtl_agent import prompts
from rtl_agent.edits import apply_blocks, parse_blocks
from rtl_agent.jobs.sft import data as sft_data
from rtl_agent.jobs.sft import improve
from rtl_agent.jobs.sft.generator import Design, family_names, mulsel


def _tiny():
    """mulsel at 4 bits: `sel ? a * b : a * c` (two multipliers) and `a * (sel ? b : c)` (one), plus a
    third variant that is smaller but NOT equivalent (a + in place of *), which must never be a pair."""
    import random
    spec, ports, widths, v = mulsel(random.Random(0), "msel", 4)
    wrong = v[1].replace("a * (sel ? b : c)", "a + (sel ? b : c)")
    return Design("mulsel", "msel", spec, ports, v + [wrong], None, None, widths)


def test_improve_families_are_known():
    names = family_names("improve")
    assert "mulsel" in names and "max4" in names and len(family_names("all")) == 33
    assert set(family_names("every")) >= set(names)


def test_line_answer_only_for_one_statement_with_its_lhs():
    a = "module m (\n  input [3:0] x,\n  output [3:0] y\n);\n  assign y = x * 2;\nendmodule\n"
    b = a.replace("x * 2", "x << 1")
    pre, ans = improve.line_answer(a, b)
    assert pre == "```verilog\n<<<<<<< SEARCH\n  assign y = x * 2;\n=======\n  assign y =" and ans == " x << 1;\n"
    assert improve.line_answer(a, a.replace("assign y = x * 2;", "assign y = x << 1;\n  wire t;")) is None


@pytest.mark.requires("iverilog", "yosys", "sta")
def test_pairs_are_proven_better_and_in_the_jobs_format():
    d = _tiny()
    ok = sft_data._check_design(d, "nangate45")
    assert len(ok) == 2                                   # the non-equivalent variant is dropped
    ppa = {v: r.ppa for v, r in ok}
    pairs, found = improve.pairs_for(d, ok, "nangate45")
    assert found and all(f["ratio"] >= improve.MIN_RATIO for f in found)
    worse, better = max(ppa, key=ppa.get), min(ppa, key=ppa.get)
    kinds = {p["kind"] for p in pairs}
    assert {"improve-full", "improve-diff", "improve-line"} <= kinds
    from rtl_agent.focus import View
    from rtl_agent.jobs.optimize.reward import _slim
    rep = dict(ok)[worse]
    view = View("whole", worse, None, len(worse.splitlines()))
    for p in pairs:
        assert p["source"] == "gen:mulsel"
        action = "full" if p["kind"] == "improve-full" else "diff"
        slim = _slim(rep)
        assert p["messages"] == prompts.edit_prompt(d.spec, view, slim, d.top, action)   # the job's prompt
        if p["kind"] == "improve-full":
            assert p["prefill"] == "```verilog\n" + prompts.parent_header(worse, d.top)
            code = p["prefill"][len("```verilog\n"):] + p["answer"][:-len("```")]
            rep2 = improve._judge(d.top, worse, code, "nangate45", None, None)
            assert improve._better(rep2, rep.ppa, improve.MIN_RATIO)      # proven against worse, >= 1.10x
        elif p["kind"] == "improve-diff":
            assert p["prefill"] == prompts.prefill_for("diff", d.top)
            res = apply_blocks(worse, parse_blocks(p["prefill"] + p["answer"]))
            assert res.applied and res.code.strip() == better.strip()
        else:
            line = re.search(r"SEARCH\n(.*)\n=======\n", p["prefill"]).group(1)
            assert (p["prefill"].split("=======\n")[1] + p["answer"]).rstrip("\n") in better.splitlines()
            assert line in worse.splitlines()
    # nothing clears an impossible ratio
    assert improve.pairs_for(d, ok, "nangate45", min_ratio=100.0) == ([], [])


def test_refuses_headroom_rewrites_by_path_and_content(tmp_path):
    heads = sorted(f for f in HEADROOM.glob("**/*.v")) if HEADROOM.is_dir() else []
    if not heads:
        pytest.skip("no bench/headroom rewrites in this checkout")
    evals = sft_data.eval_items()
    assert str(heads[0].relative_to(HEADROOM)) in evals.get("headroom", {})   # (others may be adding files)
    with pytest.raises(ValueError, match="evaluation sets"):
        sft_data.collect_files([HEADROOM], evals)
    with pytest.raises(ValueError, match="evaluation sets"):
        sft_data.collect_files([heads[0]], evals)
    (tmp_path / "mine").mkdir()
    shutil.copy(heads[0], tmp_path / "mine" / "renamed.v")          # same text elsewhere: refused by hash
    with pytest.raises(ValueError, match="headroom"):
        sft_data.collect_files([tmp_path / "mine"], evals)
    text = heads[0].read_text()
    leaked = sft_data.example("improve-full", "x", [], "", "```verilog\n" + text + "\n```")
    kept, rep = sft_data.overlap([leaked], evals)                     # and by the overlap check
    assert kept == [] and "headroom" in rep["suites"]


@pytest.mark.requires("yosys", "sta")
def test_confirm_pdk_leaves_out_a_gain_only_one_library_gives():
    """mult8's `a * b` beats its shift-and-add array on Nangate45 (1.587x) and not on Sky130 (0.988x)."""
    from pathlib import Path
    ref = (Path(__file__).resolve().parent.parent / "designs" / "mult8" / "reference.v").read_text()
    star = "module mult8 (\n  input [7:0] a,\n  input [7:0] b,\n  output [15:0] p\n);\n  assign p = a * b;\nendmodule\n"
    assert improve.other_pdk_ratio("mult8", ref, star, "nangate45", None, None) > 1.5
    sky = improve.other_pdk_ratio("mult8", ref, star, "sky130hd", None, None)
    assert sky < 1.05
    d = Design("mult8", "mult8", "8x8 unsigned multiplier", {"a": "input", "b": "input", "p": "output"},
               [ref, star], None, None, {"a": 8, "b": 8, "p": 16})
    # the Nangate45 reports as _check_design gives them (only their ppa is read before the confirmation)
    ok = [(ref, Report(ppa=1.587)), (star, Report(ppa=1.0))]
    pairs, found = improve.pairs_for(d, ok, "nangate45", confirm_pdk="sky130hd")
    assert pairs == [] and found == [{"family": "mult8", "top": "mult8", "ratio": 1.587, "kinds": [],
                                      "other_pdk_ratio": round(sky, 3)}]



@pytest.mark.requires("iverilog", "yosys", "sta")
def test_idle_pipeline_pair_needs_reachable_states_and_is_proven():
    """idlepipe: a valid/data shift pipeline -> one held word and a down-counter. They agree only on reachable
    states (busy blocks a second request); the flow must still prove it, rank the counter better, and refuse a
    counter that counts the wrong way."""
    import random
    from rtl_agent.jobs.sft.generator import idlepipe
    spec, ports, widths, v, clk, rst = idlepipe(random.Random(3), "ipipe", 4)
    pipe, count = v[0], v[2]
    wrong = count.replace("left <= left - ", "left <= left + ")
    assert wrong != count
    d = Design("idlepipe", "ipipe", spec, ports, [pipe, count, wrong], clk, rst, widths)
    ok = sft_data._check_design(d, "nangate45")
    assert [t for t, _ in ok] == [pipe, count]
    pairs, found = improve.pairs_for(d, ok, "nangate45")
    full = [p for p in pairs if p["kind"] == "improve-full"]
    assert len(full) == 1 and found[0]["ratio"] >= improve.MIN_RATIO
    assert "left" in full[0]["answer"] and "integer i" not in full[0]["answer"]
