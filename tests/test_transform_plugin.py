"""A transformation kind is a plug-in: one Transform subclass and one registry call. A toy kind registered
here is listed by the library, offered on optimize's menu through the toolkit, and its design goes through the
real flow and is proven equivalent (no model: the exhaustive chooser draws every option)."""
import re

import pytest

from rtl_agent import transforms as T
from rtl_agent.jobs.optimize import OptimizeConfig, OptimizeEnv
from training.rows import Context


class DoubleNot(T.Transform):
    """A toy: one `assign` whose right-hand side is negated twice (sound, and Yosys maps it alike)."""
    name = "double_not"
    summary = "an assignment's value negated twice"

    def options(self, d):
        return [T.Option(self.name, str(i), {"line": i}, f"negate the value of line {i + 1} twice")
                for i, s in enumerate(d.code.splitlines()) if re.match(r"\s*assign\s+\w+\s*=", s)]

    def apply(self, d, o):
        lines = d.code.splitlines()
        m = re.match(r"(\s*assign\s+\w+\s*=\s*)(.+);(.*)$", lines[o.params["line"]])
        if not m:
            raise T.TransformError("the line is no longer an assignment")
        lines[o.params["line"]] = f"{m.group(1)}~(~({m.group(2)}));{m.group(3)}"
        return "\n".join(lines) + "\n"


@pytest.fixture
def double_not():
    T.kinds()                       # the built-in kinds first: a plug-in joins the end of the menu
    T.register(DoubleNot())
    try:
        yield
    finally:
        T.unregister("double_not")
    assert "double_not" not in T.REGISTRY


@pytest.mark.requires("iverilog", "yosys", "sta")
def test_a_registered_transformation_is_offered_chosen_and_proven(double_not, tmp_path):
    assert T.kinds()[-1] == "double_not"
    e = OptimizeEnv(OptimizeConfig(task="counter8", actions="transform", transforms="double_not",
                                   chooser="exhaustive", kinds_per_parent=1, noise=False, train=False), tmp_path)
    ctx = Context(tmp_path, lambda kind, **data: None)
    e.open(ctx)
    e.start(ctx)
    (g,) = e.groups(ctx, 1)
    assert g.choices == ("negate the value of line 16 twice",) and g.info["options"][0]["kind"] == "double_not"
    cand = e.extract(g.prefill + g.choices[0], g)
    assert cand.value["applied"] and "~(~(en & (q == 8'hFF)))" in cand.value["code"]
    (row,) = e.score(ctx, 1, [g], [[cand]])[0]
    assert row.failed is None and row.payload["eda"]["stages"]["equiv"]["status"].startswith("proven")
    assert row.payload["candidate"]["chain"] == ["double_not: negate the value of line 16 twice"]


def test_each_built_in_kind_is_its_own_module_named_on_the_registry_line():
    T.kinds()
    homes = {name: type(t).__module__ for name, t in T.REGISTRY.items() if name != "double_not"}
    assert sorted(m.split(".")[2] for m in homes.values()) == sorted(T.KIND_MODULES)
    assert all(m.startswith("rtl_agent.transforms.") for m in homes.values())
