"""Witness pairs (rtl_agent/jobs/sft/witness.py) on one tiny generated counter: the prompt is the cover job's own,
names the point, and the answer, replayed the way the cover job runs a stimulus, hits it; a witness whose
replay misses is not kept."""
import re

import pytest

from rtl_agent.jobs import cover
from rtl_agent.jobs.sft import witness
from rtl_agent.jobs.sft.generator import designs
from rtl_agent.prompts.stimulus import STIM_SYSTEM

pytestmark = pytest.mark.requires("verilator")


@pytest.fixture(scope="module")
def counter(tmp_path_factory):
    d = designs(0, 1, "counter")[0]              # 4-bit counter with rst and en: 3 random cycles leave its top bits
    return witness.design_task(d, tmp_path_factory.mktemp("wit"))


def test_witness_pair_hits_the_point_its_prompt_names(counter):
    cfg = cover.CoverConfig(max_tokens=128)
    pairs, n = witness.witness_pairs(counter, "gen:counter", cfg, random_runs=1, cycles=3, max_pairs=2)
    assert n["holes"] > 0 and pairs, n
    inputs = [p.name for p in counter.ports if p.direction == "input" and p.name != counter.clock]
    sources = counter.reference_sources()
    for p in pairs:
        msgs, user = p["messages"], p["messages"][-1]["content"]
        assert msgs[0]["content"] == STIM_SYSTEM and len(msgs) == 4      # the cover job's prompt: worked example on
        assert "1 constrained-random test(s) ran first" in user
        m = re.search(r":(\d+) (line|branch|toggle) (\w+)?(\[\d+\])?:?(\S*)", p["point"])
        if m.group(2) == "toggle":
            assert any(ln.startswith(f"- signal {m.group(3)} not toggled:") and f"{m.group(4) or ''} {m.group(5)}".strip()
                       in ln for ln in user.splitlines()), (p["point"], user)
        else:
            assert f"- line {m.group(1)} {m.group(2)}" in user, (p["point"], user)
        stim = cover.extract_stimulus(p["answer"], inputs)[0]
        r = cover.simulate(counter, sources, stim, cfg)
        assert r.ok and any(q.key == p["key"] and q.count > 0 for q in r.points), p["answer"]


def test_a_witness_whose_replay_misses_is_dropped(counter, monkeypatch):
    # every answer only holds reset: it cannot toggle the counter's top bits
    monkeypatch.setattr(witness, "witness_body", lambda v, ports, clock=None, period_ns=10.0:
                        "```verilog\n// from: reset\n#1; rst = 1;\nrepeat (3) @(negedge clk);\n$finish;\n```")
    pairs, n = witness.witness_pairs(counter, "gen:counter", random_runs=1, cycles=3, max_pairs=2)
    assert pairs == [] and n["missed"] > 0, n
