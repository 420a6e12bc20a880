"""A flow stage is one class and one registry line: a toy stage registered here runs in a real flow
(Yosys, OpenSTA) after synthesis, takes its options from the job, keeps its file, is cached, and shows
in the report; eda/flow.py names no stage."""
import ast
import re
from pathlib import Path

import pytest

from eda import stages
from eda.cache import Cache
from eda.flow import FlowJob, evaluate
from eda.kept import copy
from eda.report import StageResult

ROOT = Path(__file__).resolve().parent.parent
pytestmark = pytest.mark.requires("yosys", "sta")


class CellCount(stages.Stage):
    """Counts the synthesized netlist's Nangate45 cell instances; fails under the `at_least` option."""

    def run(self, ctx):
        n = len(re.findall(r"^\s*\w+_X\d+\s+\S+\s*\(", ctx.netlist.read_text(), re.M))
        (ctx.work / "cells.txt").write_text(f"{n}\n")
        copy(ctx.work, ctx.keep, self.artifacts)
        ok = n >= ctx.options(self.name)["at_least"]
        return StageResult(self.name, "pass" if ok else "fail", data={"cells": n, "file": str(ctx.keep / "cells.txt")})


@pytest.fixture
def toy():
    st = stages.register(CellCount("cells", "back", ("netlist",), (), "", -0.1, options={"at_least": 1},
                                   artifacts=("cells.txt",), default=False))
    yield st
    stages.unregister("cells")


def test_a_registered_stage_runs_in_the_real_flow(toy, tmp_path):
    src = {"adder16.v": (ROOT / "designs" / "adder16" / "reference.v").read_text()}
    job = FlowJob(top="adder16", stages=("synth", "sta", "cells"), cache=Cache(tmp_path / "cache"),
                  keep=str(tmp_path / "keep"))
    rep = evaluate(job, src)
    assert rep.ok, rep.to_dict()
    assert list(rep.stages) == ["screen", "synth", "sta", "cells"]          # after sta: the registry's order
    cells = rep.stage("cells").data["cells"]
    assert cells == rep.stage("synth").data["cells"] > 0
    assert (tmp_path / "keep" / "cells.txt").read_text() == f"{cells}\n"
    assert rep.to_dict()["stages"]["cells"]["data"]["cells"] == cells and rep.ppa > 0

    hit = evaluate(job.replace(keep=str(tmp_path / "k2")), src)      # cached: its file kept where asked
    assert hit.cached and hit.stage("cells").data == {"cells": cells, "file": str(tmp_path / "k2" / "cells.txt")}
    assert (tmp_path / "k2" / "cells.txt").is_file()

    strict = evaluate(job.replace(options={"cells": {"at_least": cells + 1}}), src)    # its options key its result
    assert strict.failed_stage == "cells" and strict.stage("sta").ok


def test_options_for_a_stage_that_takes_none_are_refused(toy):
    assert FlowJob(top="m", options={"cells": {"at_least": 3}}).options == {"cells": {"at_least": 3}}
    with pytest.raises(ValueError, match="stage.s. that take none: sim"):
        FlowJob(top="m", options={"sim": {"x": 1}})
    with pytest.raises(ValueError, match="registered already"):
        stages.register(toy)


def test_flow_names_no_stage():
    tree = ast.parse((ROOT / "eda" / "flow.py").read_text())
    named = {n.value for n in ast.walk(tree) if isinstance(n, ast.Constant) and isinstance(n.value, str)}
    assert not named & set(stages.BY_NAME), named & set(stages.BY_NAME)
