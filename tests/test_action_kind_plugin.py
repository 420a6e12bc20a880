"""An optimize action kind is a plug-in: one class given the run's Toolkit, one registry line. A toy kind
registered here reaches --actions, --help and the bandit's menu, builds its group through the toolkit on a real
design, and its answer goes through the real flow (no model: the answer is written here)."""
import importlib
import pkgutil
import re
from pathlib import Path

import pytest

from rtl_agent.cli import build_parser
from rtl_agent.commands.optimize import config_from_args
from rtl_agent.jobs.optimize import OptimizeConfig, OptimizeEnv
from rtl_agent.jobs.optimize import kinds
from rtl_agent.jobs.optimize.actions import Bandit
from rtl_agent.jobs.optimize.kinds.base import ActionKind
from training.rows import Context


class Commute(ActionKind):
    """A toy: the parent's first `assign x = a & b;` offered with the operands of its `&` swapped."""
    name, auto, choice = "commute", False, True
    summary = "the operands of one assignment's & swapped"

    def group(self, kit, state, sid, seed, n):
        code = state.payload["code"]
        i, line = next((i, s) for i, s in enumerate(code.splitlines()) if re.match(r"\s*assign .* & ", s))
        swapped = re.sub(r"= (.+?) & (.+);", r"= \2 & \1;", line)
        view, msgs = kit.view(state.payload, "diff")
        pre = kit.prefill("diff", parent=code) + line + "\n=======\n"
        return kit.edit_group(sid, n, self.name, "diff", view, msgs, pre, "\n", target=i, one_line=True,
                              choices=(swapped,))


@pytest.fixture
def commute():
    kinds.register(Commute)
    try:
        yield
    finally:
        kinds.unregister("commute")
    assert "commute" not in kinds.names()


def test_a_registered_kind_is_on_every_menu(commute, capsys):
    assert kinds.names()[-1] == "commute" and "commute" not in kinds.parse_kinds("auto")     # auto = False
    assert kinds.parse_kinds("commute,decl") == ("commute", "decl")
    args = build_parser().parse_args(["optimize", "counter8", "--actions", "commute"])
    assert config_from_args(args).actions == "commute"
    with pytest.raises(SystemExit):
        build_parser().parse_args(["optimize", "--help"])
    assert "narrow, line, commute (not in auto: narrow, commute)" in " ".join(capsys.readouterr().out.split())
    with pytest.raises(ValueError, match="registered already"):
        kinds.register(Commute)


@pytest.mark.requires("iverilog", "yosys", "sta")
def test_a_registered_kind_builds_its_group_through_the_toolkit_and_its_answer_is_scored(commute, tmp_path):
    e = OptimizeEnv(OptimizeConfig(task="counter8", actions="commute", kinds_per_parent=1, noise=False), tmp_path)
    ctx = Context(tmp_path, lambda kind, **data: None)
    e.open(ctx)
    e.start(ctx)
    assert e.kinds == ("commute",) and isinstance(e.bandit, Bandit)
    (g,) = e.groups(ctx, 1)
    assert g.info["action_kind"] == "commute" and g.n == e.cfg.choice_group and g.stop == "\n"
    assert g.choices == ("    assign tc = (q == 8'hFF) & en;",) and g.info["target_line"] == 16
    cand = e.extract(g.prefill + g.choices[0] + "\n", g)
    assert cand.value["applied"] and "(q == 8'hFF) & en" in cand.value["code"]
    (row,) = e.score(ctx, 1, [g], [[cand]])[0]
    assert row.failed is None and row.payload["candidate"]["kind"] == "commute", row.status
    assert row.payload["candidate"]["chain"] == ["commute"] and e.bandit.stats["commute"]["valid"] == 1


def test_the_built_in_kinds_are_one_module_and_one_registry_line_each_and_never_touch_the_env():
    folder = Path(kinds.__file__).parent
    found = {m.name for m in pkgutil.iter_modules([str(folder)])} - {"base", "toolkit"}
    assert found == set(kinds.MODULES)                  # a kind module left off the registry would be dead code
    for name in kinds.MODULES:
        mod = importlib.import_module(f"{kinds.__name__}.{name}")
        assert kinds.get(name).__class__.__module__ == mod.__name__
        src = (folder / f"{name}.py").read_text()
        assert not re.search(r"\benv\b|\._[A-Za-z]", src), f"kinds/{name}.py reaches past the toolkit"
