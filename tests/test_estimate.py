"""--chooser estimate: every option of a parent synthesized and timed alone (Yosys + OpenSTA, real tools), the
best estimates first; the group sends the first n to the full flow."""
import pytest

from eda.flow import evaluate
from rtl_agent import transforms as T
from rtl_agent.jobs.optimize import OptimizeConfig, OptimizeEnv
from rtl_agent.jobs.optimize.estimate import Estimator, order
from training.rows import Context


def first_group(tmp_path, chooser: str, n: int):
    """wide_count's run opened with only the transform kind and `chooser`: the env and its first group."""
    e = OptimizeEnv(OptimizeConfig(task="wide_count", actions="transform", chooser=chooser, choice_group=n,
                                   kinds_per_parent=1, noise=False, ranges=False, train=False), tmp_path)
    ctx = Context(tmp_path, lambda kind, **data: None)
    e.open(ctx)
    e.start(ctx)
    (g,) = e.groups(ctx, 1)
    return e, g


def test_order_puts_the_best_estimate_first_and_the_unknown_last():
    assert order([1.1, None, 2.0, 0.9, None]) == [2, 0, 3, 1, 4]


@pytest.mark.requires("iverilog", "yosys", "sta")
def test_the_estimate_group_ranks_every_option_by_its_synthesized_ppa(tmp_path):
    e, g = first_group(tmp_path, "estimate", 3)
    est = g.info["estimates"]
    assert g.chooser == "exhaustive" and g.info["chooser"] == "estimate" and g.n == 3
    assert len(est) == len(g.choices) > 3 and [r for r in est if r is not None] == \
        sorted((r for r in est if r is not None), reverse=True)
    # the first option's estimate is the reference's synthesized PPA over its design's, measured again here
    ref = "\n".join(e.task.reference_sources().values())
    child = T.apply(T.Design(ref, "wide_count"), T.Option.from_dict(g.info["options"][0]))
    job = e.job.replace(stages=("synth", "sta"), use_cache=False)
    again = evaluate(job, {"wide_count.v": ref}).ppa / evaluate(job, {"wide_count.v": child}).ppa
    assert est[0] == pytest.approx(again, rel=1e-3) and est[0] > 1.0
    assert Estimator(e.job, "wide_count").ratios(ref, [None]) == [None]


def test_the_ranker_learns_which_words_prove_out_and_round_trips(tmp_path):
    from rtl_agent.jobs.optimize.ranker import Ranker
    rows = [(f"{p}{s}_reg: no hold", "idle", 1.4 if s == "tvalid" else 1.2, s != "tvalid")
            for p in ("m_axis_", "temp_m_axis_", "s_axis_") for s in ("tvalid", "tdest", "tid")] * 3
    m = Ranker.fit(rows)
    assert m.p("x_tvalid_reg: no hold", "idle", 1.4) < 0.5 < m.p("x_tdest_reg: no hold", "idle", 1.2)
    # the estimate alone would take tvalid (1.4x) first; the ranker puts the likely proof first
    assert m.order(["q_tvalid_reg: no hold", "q_tdest_reg: no hold"], ["idle", "idle"], [1.4, 1.2]) == [1, 0]
    m.save(tmp_path / "w.json", {"trained_on": "test"})
    assert Ranker.load(tmp_path / "w.json").w.tolist() == pytest.approx(m.w.tolist(), abs=1e-6)
    with pytest.raises(FileNotFoundError, match="choice_train.py"):
        Ranker.load(tmp_path / "none.json")


@pytest.mark.requires("iverilog", "yosys", "sta")
def test_the_learned_chooser_ranks_with_the_shipped_weights(tmp_path):
    from rtl_agent.jobs.optimize.ranker import Ranker
    _, g = first_group(tmp_path, "learned", 2)
    opts = g.info["options"]
    assert g.chooser == "exhaustive" and g.info["chooser"] == "learned" and g.n == 2
    # the group's order is the shipped ranker's order of the same options and estimates
    again = Ranker.load().order([o["label"] for o in opts], [o["kind"] for o in opts], g.info["estimates"])
    assert again == list(range(len(opts)))
