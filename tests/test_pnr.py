"""The pnr stage: real OpenROAD place and route on small designs of both PDKs, then OpenSTA with the routed
wires. No mocks: a missing OpenROAD fails here naming the setup step (RTL_AGENT_ALLOW_SKIP=1 skips)."""
import os
from pathlib import Path

import pytest

from eda import stages
from eda.cache import Cache
from eda.flow import ALL_STAGES, KNOWN_STAGES, FlowJob, evaluate
from eda.tools import OPENROAD, ToolMissing

ROOT = Path(__file__).resolve().parent.parent
PNR = ("screen", "lint", "synth", "sta", "pnr")


def _need_openroad():
    try:
        OPENROAD.paths()
    except ToolMissing as e:
        if os.environ.get("RTL_AGENT_ALLOW_SKIP") and not os.environ.get("CI"):
            pytest.skip(str(e))
        pytest.fail(str(e))


def _job(name, pdk, tmp_path, pnr=None):
    src = {f"{name}.v": (ROOT / "designs" / name / "reference.v").read_text()}
    return FlowJob(top=name, pdk=pdk, stages=PNR, cache=Cache(tmp_path / "cache"), keep=str(tmp_path / "keep"),
                   options={"pnr": pnr or {}}), src


def test_pnr_is_an_optional_row_of_the_stage_table():
    assert "pnr" in KNOWN_STAGES and "pnr" not in ALL_STAGES and "pnr" not in stages.STAGES
    assert stages.BY_NAME["pnr"].tool == "openroad" and "pnr" not in stages.PENALTIES


@pytest.mark.slow
@pytest.mark.parametrize("pdk", ["nangate45", "sky130hd"])
@pytest.mark.parametrize("name", ["adder16", "counter8"])
def test_pnr_routes_small_designs(name, pdk, tmp_path):
    _need_openroad()
    job, src = _job(name, pdk, tmp_path)
    rep = evaluate(job, src)
    p = rep.stages["pnr"]
    assert rep.ok, (p.status, [d.message for d in p.diagnostics], p.log[-800:])
    d = p.data
    assert d["drc"] == 0 and d["wirelength_um"] > 0 and d["vias"] > 0
    assert d["delay_ns"] > 0 and d["power_w"] > 0
    # routed parasitics replace the Liberty wire-load model (Nangate45 has one, which is pessimistic for
    # designs this small): near the post-synthesis delay, never far below it
    assert d["delay_ns"] >= 0.8 * rep.delay_ns
    assert d["core_area_um2"] > d["cell_area_um2"] > 0
    assert "ROUTED" in Path(d["def"]).read_text()
    if name == "counter8":       # a clock: a clock tree was built and timed as propagated
        assert d["clock"] == "clk" and d.get("cts_buffers", 0) >= 1
    if name == "adder16" and pdk == "nangate45":    # the same netlist again, uncached: the same numbers
        again = evaluate(job.replace(use_cache=False), src).stages["pnr"].data
        keys = ("drc", "wirelength_um", "vias", "delay_ns", "power_w", "cell_area_um2", "core_area_um2")
        assert {k: again[k] for k in keys} == {k: d[k] for k in keys}
        hit = evaluate(job.replace(keep=str(tmp_path / "k2")), src)       # a cache hit still keeps the DEF
        assert hit.cached and Path(hit.stages["pnr"].data["def"]) == tmp_path / "k2" / "routed.def"
        assert (tmp_path / "k2" / "routed.def").is_file()


@pytest.mark.slow
def test_pnr_impossible_utilization_is_a_clear_failure(tmp_path):
    _need_openroad()
    job, src = _job("adder16", "nangate45", tmp_path, pnr={"utilization": 0.99})
    rep = evaluate(job, src)
    p = rep.stages["pnr"]
    assert not rep.ok and rep.failed_stage == "pnr" and p.status in ("fail", "error")
    assert "utilization 0.99" in p.diagnostics[0].message or "DRC" in p.diagnostics[0].message
    assert "delay_ns" not in p.data


def test_pnr_bad_options_and_missing_openroad_are_one_line_errors(tmp_path, monkeypatch):
    job, src = _job("adder16", "nangate45", tmp_path, pnr={"utilization": 1.5})
    rep = evaluate(job, src)
    assert rep.stages["pnr"].status == "error" and "between 0 and 1" in rep.stages["pnr"].diagnostics[0].message
    assert rep.stages["sta"].ok      # the stages before it still report
    monkeypatch.setenv("RTL_AGENT_OPENROAD", str(tmp_path / "none"))
    rep = evaluate(job.replace(options={}, use_cache=False), src)
    msg = rep.stages["pnr"].diagnostics[0].message
    assert rep.stages["pnr"].status == "error" and "not installed" in msg and "setup" in msg


def test_optimize_routed_check_without_openroad_is_a_reported_skip(tmp_path, monkeypatch):
    from rtl_agent.jobs.optimize import routed
    monkeypatch.setenv("RTL_AGENT_OPENROAD", str(tmp_path / "none"))
    got = routed.check(FlowJob(top="adder16"), {}, "adder16", "module adder16; endmodule")
    assert got["ratio"] is None and got["why"].startswith("skipped: OpenROAD")
    assert "not measured (skipped" in routed.describe(got)


@pytest.mark.slow
def test_optimize_confirms_mult8s_find_after_place_and_route(tmp_path):
    """mult8's `a * b` (1.59x after synthesis on Nangate45): both routed, the ratio after routing reported beside
    it in the find line, the routed DEFs kept in the run folder."""
    _need_openroad()
    from designs import load_task
    from eda.flow import calibrate
    from rtl_agent.commands.optimize import find_line
    from rtl_agent.jobs.optimize import routed
    t = load_task("mult8")
    src = t.reference_sources()
    job, _ = calibrate(t.flow_job("nangate45"), src, against_itself=True)
    mul = "module mult8 (input [7:0] a, input [7:0] b, output [15:0] p);\n  assign p = a * b;\nendmodule\n"
    c = routed.cached_check(tmp_path, job, src, t.top, mul)
    assert c["ratio"] > 0 and abs(c["synth_ratio"] - 1.587) < 0.01, c
    assert c["ref"]["drc"] == c["design"]["drc"] == 0 and (tmp_path / "pnr" / "design" / "routed.def").is_file()
    assert routed.cached_check(tmp_path, job, src, t.top, mul) == c     # kept: not redone
    s = {"best_source": "candidate", "best_ratio": 1.587, "noise_floor": 1.0, "above_noise": True,
         "best_proof": "proven", "best_kind": "spec", "pnr": c}
    assert f"1.59x after synthesis, {c['ratio']:.2f}x after place and route on nangate45" in find_line(s, "b.v")
    from rtl_agent.jobs.optimize.outputs import _routed
    from rtl_agent.jobs.optimize.report import _routed_html
    assert (tmp_path / "layout.png").stat().st_size > 10_000 and "layout.png" in _routed_html(_routed(tmp_path))


@pytest.mark.slow
def test_regress_pnr_adds_the_routed_reference_columns():
    _need_openroad()
    from designs import load_task
    from rtl_agent.jobs.regress import score_design, summarize_design
    t = load_task("adder16")
    row = summarize_design(score_design(t, [("s0", t.reference_sources(), "")], "nangate45", pnr=True), [1])
    assert row["ref_pnr_status"] == "pass" and row["ref_drc"] == 0 and row["ref_wirelength_um"] > 0
    assert row["ref_routed_ppa"] > 0 and row["ref_core_area_um2"] > row["ref_routed_area_um2"]
    plain = summarize_design(score_design(t, [], "nangate45"), [1])
    assert not any(k.startswith(("ref_pnr", "ref_routed")) for k in plain)     # without --pnr: the old columns
