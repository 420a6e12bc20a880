"""The optimizer's `transform` action kind: the environment lists the library's options for a parent, a chooser
picks (the policy; or random / exhaustive, the baselines), the chosen program writes the candidate, and the
flow's verdict and the chain reach the row. Real tools, no model."""
from rtl_agent.jobs.optimize import OptimizeConfig
from rtl_agent.jobs.optimize.actions import Bandit
from rtl_agent.jobs.optimize.kinds import parse_kinds
from rtl_agent.jobs.optimize.env import OptimizeEnv
from rtl_agent.jobs.optimize.kinds import registry
from rtl_agent.jobs.optimize.kinds.transform import pick
from training.loop import Group, uniform_picks
from training.rows import Context


def open_env(tmp_path, task, **kw):
    e = OptimizeEnv(OptimizeConfig(task=task, group=3, kinds_per_parent=1, noise=False, **kw), tmp_path / "run")
    ctx = Context(tmp_path / "run", lambda kind, **data: None)
    e.open(ctx)
    e.start(ctx)
    return e, ctx


def test_kinds_are_classes_found_by_name():
    reg = registry()
    assert list(reg)[:1] == ["transform"] and {"spec", "rewrite", "diff", "decl", "line", "narrow"} <= set(reg)
    assert parse_kinds("auto") == tuple(k for k, v in reg.items() if v.auto) and "narrow" not in parse_kinds("auto")
    assert Bandit(("spec", "transform", "diff")).choose(2, __import__("random").Random(0))[0] == "transform"


def test_a_transform_group_lists_the_options_and_a_choice_becomes_a_proven_design(tmp_path):
    e, ctx = open_env(tmp_path, "popcount16")
    (g,) = e.groups(ctx, 1)
    assert g.info["action_kind"] == "transform" and g.stop == "\n" and g.chooser == "policy"
    labels = [o["label"] for o in g.info["options"]]
    assert list(g.choices) == labels and any("unconditional arithmetic" in x for x in labels)
    assert all(f"- {x}" in g.prompt[-1]["content"] for x in labels)
    i = next(i for i, x in enumerate(labels) if "unconditional arithmetic" in x)
    cand = e.extract(g.prefill + g.choices[i] + "\n", g)
    assert cand.value["applied"] and "count = count + x[i];" in cand.value["code"]
    (row,) = e.score(ctx, 1, [g], [[cand]])[0]
    assert row.status == "pass" and row.payload["ratio"] > 2.5
    assert row.payload["candidate"]["chain"] == [f"cond_arith: {labels[i]}"]
    assert e.best["chain"] == row.payload["candidate"]["chain"]
    # an answer that names no option is an apply failure, not a crash
    bad = e.extract(g.prefill + "make it faster\n", g)
    assert bad.value["code"] is None and not bad.value["applied"] and "none of the listed" in bad.value["error"]


def test_random_and_exhaustive_choosers_pick_without_the_policy(tmp_path):
    e, ctx = open_env(tmp_path, "mult8", chooser="exhaustive", transforms="recognise")
    (g,) = e.groups(ctx, 1)
    n = len(g.choices)
    assert g.chooser == "exhaustive" and g.n == n >= 1
    picks = uniform_picks(g, 7)
    assert [p.text for p in picks] == [g.prefill + c for c in g.choices] and all(not p.token_ids for p in picks)
    rnd = Group([], 5, None, "T: ", {}, "\n", (), ("a", "b", "c"), chooser="random")
    got = [p.text for p in uniform_picks(rnd, 3)]
    assert len(got) == 5 and set(got) <= {"T: a", "T: b", "T: c"} and got == [p.text for p in uniform_picks(rnd, 3)]


def test_pick_reads_a_label_or_a_number():
    from rtl_agent.transforms import Option
    opts = [Option("k", "s", {}, "narrow cnt from 32 to 5 bits"), Option("k", "t", {}, "narrow cnt from 32 to 6 bits")]
    assert pick(" narrow cnt from 32 to 6 bits", opts) is opts[1]
    assert pick("2. whatever", opts) is opts[1] and pick("nothing", opts) is None


def test_option_memory_drops_drawn_options_on_a_parent_and_failed_ones_below_it(tmp_path):
    e, ctx = open_env(tmp_path, "fsm_onehot", chooser="exhaustive", option_memory=True)
    (g,) = e.groups(ctx, 1)
    cands = [e.extract(p.text, g) for p in uniform_picks(g, 1)]
    rows = e.score(ctx, 1, [g], [cands])[0]
    label = {id(r): c.value["transform"]["label"] for c, r in zip(cands, rows)}
    failed = {label[id(r)] for r in rows if r.failed not in (None, "duplicate")}
    passed = {label[id(r)] for r in rows if r.failed is None}
    assert failed and passed                     # fsm_onehot's unsafe idles fail, its narrow passes
    assert e.kit.remembered(g.parent) == set(g.choices)        # every option drawn on the root: none offered again
    children = [s for s in e.pool_.states.values() if s.parent == g.parent]
    assert children and all(e.kit.remembered(c.id) == failed for c in children)   # a failure stays banned below
    code = children[0].payload["code"]
    offered = {o.label for o in e.kit.transform_options(code, children[0].id)}
    assert not offered & failed and offered
    plain, _ = open_env(tmp_path / "plain", "fsm_onehot", chooser="exhaustive")
    assert plain.kit.remembered(0) == set()


def test_explore_takes_a_share_of_a_choice_group_only_when_options_outnumber_it(tmp_path):
    e, ctx = open_env(tmp_path, "fsm_onehot", choice_group=2, explore=0.25)
    (g,) = e.groups(ctx, 1)
    assert g.n == 2 < len(g.choices) and g.explore == 1       # one uniform draw of two; the policy keeps one
    assert e.kit.explored(8, 20) == 2 and e.kit.explored(8, 8) == 0 and e.kit.explored(1, 5) == 0
    e.cfg.explore = 0.0
    assert e.kit.explored(8, 20) == 0
