"""bench/choice_gen.py: generated designs are deterministic per seed, parse, and offer the library's options."""
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.choice_gen import DECOYS, TEMPLATES, generate  # noqa: E402
from eda.flow import FlowJob, evaluate  # noqa: E402
from rtl_agent import transforms as T  # noqa: E402


def test_same_seed_same_design_other_seed_other_design():
    a, b, c = generate(7, 8), generate(7, 8), generate(8, 8)
    assert a == b
    assert a[0] != c[0]
    assert len(a[2]) == 8 and set(a[2]) <= set(TEMPLATES) and set(a[2]) & set(DECOYS)


@pytest.mark.parametrize("seed", [2, 5])
def test_design_parses_and_offers_options_of_several_kinds(seed):
    code, top, _ = generate(seed, 10)
    opts = T.options(T.Design(code, top))
    kinds = {o.kind for o in opts}
    # a budget of 10 evaluations needs >= 30 options to choose among; the blocks bring several kinds
    assert len(opts) >= 30, [o.label for o in opts]
    assert {"idle", "cond_arith"} <= kinds and len(kinds) >= 3
    # an option applies and leaves a design the parser still reads
    child = T.apply(T.Design(code, top), opts[0])
    assert child != code and T.Design(child, top).parsed() is not None


def test_every_template_synthesizes():
    """All templates in one design through Yosys (synthesis only): the generator writes legal Verilog."""
    import random
    ports, bodies = [], []
    for i, (name, make) in enumerate(sorted(TEMPLATES.items())):
        pp, body = make(random.Random(i), f"t{i}")
        ports += pp
        bodies.append(body)
    decl = ",\n".join(["input clk", "input rst"] + [f"{d} {'' if w == 1 else f'[{w - 1}:0] '}{n}" for d, w, n in ports])
    code = f"module all_t (\n{decl}\n);\n" + "".join(bodies) + "endmodule\n"
    rep = evaluate(FlowJob(top="all_t", stages=("synth",), use_cache=False), {"all_t.v": code})
    assert rep.status == "pass", rep.failure_reason


# version 2 (bench/choice_gen2.py): bigger menus, context-dependent payoffs, template families split


def test_v2_families_split_and_menus_reach_30():
    from bench.choice_gen2 import HELD_FAMILY, HELD_MIN, TRAIN_FAMILY, generate as gen2
    from bench.choice_gen_bench import generated
    assert gen2(3, "train") == gen2(3, "train") and gen2(3, "train")[0] != gen2(3, "held_out")[0]
    with pytest.raises(ValueError):
        gen2(0, "test")
    for i in range(2):
        _, _, kinds = gen2(i, "train")
        assert set(kinds) <= set(TRAIN_FAMILY)          # a train design never holds a held-out template
        _, _, kinds = gen2(i, "held_out")
        assert sum(k in HELD_FAMILY for k in kinds) >= HELD_MIN
    code, top, kinds, blocks = generated("held_out", 4, 30)
    assert len(T.options(T.Design(code, top))) >= 30 and blocks == len(kinds)


def test_v2_facts_read_width_fanout_and_compared_constants():
    from bench.choice_gen2 import _counter_v, _dupop_v
    from bench.choice_gen_rank import FactsRanker, facts
    import random
    _, body = _counter_v(random.Random(1), "ab")
    f = facts(body, "ab_cnt", {"names": ["ab_cnt"], "width": 6})
    lim = int(body.split("ab_cnt == ")[1].split("'d")[1].split(")")[0])
    assert f["width"] in (10, 12, 16) and f["cmp_bits"] == lim.bit_length() and f["fanout"] >= 3 and f["sel_bits"] == 4
    _, body = _dupop_v(random.Random(0), "cd")
    assert facts(body, "assign cd_y (line 1)")["fanout"] == 0       # an output port: read nowhere inside
    # the facts ranker learns a narrow that keeps every compared constant pays, one that cuts them fails
    recs = [{"label": f"narrow r from 16 to {w} bits", "kind": "narrow", "estimate": 1.5, "width": 16,
             "fanout": 3, "cmp_bits": 9, "params": {"width": w}} for w in (4, 5, 9, 10)]
    m = FactsRanker.fit([(r, r["params"]["width"] >= 9) for r in recs * 5])
    assert set(m.order(recs)[:2]) == {2, 3}
