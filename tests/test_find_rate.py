"""The find-rate report judges every run against the current noise floor, not the one it ran with."""
from bench.find_rate import ceilings, summarize


def _run(best: float, seed: int = 0) -> dict:
    # a run that was judged a find under the older (four-kind) floor it recorded
    return {"task": "popcount16", "mode": "ttt", "seed": seed, "best_ratio": best, "found": True,
            "finds": {"line": 1}, "noise_floor": 1.0}


def test_the_floor_includes_the_fifth_perturbation_kind():
    c, nf, suite = ceilings()["popcount16"]
    assert suite == "project" and c > 2.5
    assert abs(nf - 1.258) < 1e-3        # noise_neutral.csv raised it from 1.0 (a zero folded into the sum)


def test_a_find_at_the_current_floor_no_longer_counts_and_one_above_does():
    ceil = ceilings()
    at = summarize([_run(1.2580008710778492)], ceil)[0]     # the committed find: the floor's own netlist
    assert at["found_runs"] == 0 and at["recovered"] == 0.0 and at["finds_by_kind"] == "{}"
    above = summarize([_run(1.2580008710778492), _run(1.40, seed=1)], ceil)[0]
    assert above["found_runs"] == 1 and above["recovered"] > 0 and '"line": 1' in above["finds_by_kind"]


def test_the_map_and_find_rate_judge_by_the_same_floor():
    import json
    from bench.find_rate import RESULTS
    from bench.headroom_report import table
    rows = json.loads((RESULTS / "headroom.json").read_text())["rows"]
    ceil = ceilings()
    t = {x["design"]: x for x in table(rows)}
    assert t.keys() == ceil.keys()
    for d, (c, nf, _) in ceil.items():
        assert abs(t[d]["noise_floor"] - round(nf, 4)) < 1e-9, d
    # the fifth kind reaches the map's table too: popcount16's four-kind floor was 1.0
    assert t["popcount16"]["noise_floor"] > 1.25 and t["popcount16"]["noise_floor"] > rows_noise(rows, "popcount16")


def rows_noise(rows, design):
    return next(r.get("noise", 1.0) or 1.0 for r in rows if r["design"] == design)


def test_the_pooled_table_judges_like_find_rate_and_bounds_the_designs_without_a_find(tmp_path):
    import json
    from bench.find_rate_pooled import pool
    runs = [{**_run(1.2580008710778492), "samples": 20, "valid": 1},
            {**_run(1.0, seed=1), "samples": 20, "valid": 0, "task": "shared_alu"},
            {**_run(1.587, seed=1), "samples": 20, "valid": 3, "task": "mult8"}]
    p = tmp_path / "find_rate_x.json"
    p.write_text(json.dumps(runs))
    rows = {r["design"]: r for r in pool(ceilings(), [p])}
    assert rows["popcount16"]["found_runs"] == 0 and rows["popcount16"]["best"] == 1.0    # the floor's own netlist
    assert rows["mult8"]["found_runs"] == 1 and rows["mult8"]["ub95_per_sample"] == ""
    assert abs(rows["shared_alu"]["ub95_per_sample"] - (1 - 0.05 ** (1 / 20))) < 1e-4


def test_every_design_without_a_gain_says_what_was_tried_or_why_not():
    import json
    from bench.find_rate import RESULTS
    from bench.headroom_report import table, why_none
    rows = json.loads((RESULTS / "headroom.json").read_text())["rows"]
    t = table(rows)
    lines = why_none(rows, t)
    names = {ln.split(" (")[0][2:] for ln in lines}
    assert {"LFSR", "counter8", "pe"} <= names and "wide_count" not in names      # wide_count has a gain
    assert not [ln for ln in lines if "no rewrite yet" in ln], lines
    assert any(ln.startswith("- LFSR (rtllm): Four flops") for ln in lines)          # its WHY.md
    assert any(ln.startswith("- counter8 (project): tried: carry_tc.v (1.13x)") for ln in lines)
    # a design with neither a rewrite nor a reason is called out
    bare = [{**r, "rewrites": []} if r["design"] == "counter8" else r for r in rows]
    assert "- counter8 (project): **no rewrite yet**" in why_none(bare, table(bare))
