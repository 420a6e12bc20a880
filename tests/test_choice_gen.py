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
