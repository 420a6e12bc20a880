"""Cached verdicts cannot outlive the checker that produced them: the cache key holds a content hash of
the eda code and scripts (eda.cache.code_version) and the tool versions."""
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from eda.cache import code_version

ROOT = Path(__file__).resolve().parent.parent
pytestmark = pytest.mark.requires("iverilog", "yosys")

SCRIPT = """
import json, sys
from eda.cache import Cache
from eda.flow import FlowJob, evaluate
ref = {"a.v": "module a(input [3:0] x, output [3:0] y); assign y = ~x; endmodule\\n"}
cand = {"a.v": "module a(input [3:0] x, output [3:0] y); assign y = x ^ 4'hf; endmodule\\n"}
rep = evaluate(FlowJob(top="a", ref=ref, stages=("lint", "equiv"), cache=Cache(sys.argv[1])), cand)
print(json.dumps({"cached": rep.cached, "equiv": rep.equiv_status}))
"""


def _eval(copy: Path, cache: Path) -> dict:
    p = subprocess.run([sys.executable, "-c", SCRIPT, str(cache)], cwd=copy, capture_output=True, text=True,
                       env={**os.environ, "PYTHONPATH": str(copy)}, timeout=300)
    assert p.returncode == 0, p.stderr
    return json.loads(p.stdout.strip().splitlines()[-1])


def test_editing_the_equivalence_code_misses_the_cache(tmp_path):
    """A second evaluation is served from the cache; after an edit to the equivalence code (a copy of
    `eda`, imported in a fresh process) the same evaluation is recomputed, not served."""
    copy = tmp_path / "src"
    shutil.copytree(ROOT / "eda", copy / "eda", ignore=shutil.ignore_patterns("__pycache__"))
    cache = tmp_path / "cache"
    first, again = _eval(copy, cache), _eval(copy, cache)
    assert first == {"cached": False, "equiv": "proven"} and again == {"cached": True, "equiv": "proven"}
    sat = copy / "eda" / "equiv" / "sat.py"
    sat.write_text(sat.read_text() + "\n# a changed checker\n")
    assert _eval(copy, cache) == {"cached": False, "equiv": "proven"}
    script = copy / "eda" / "scripts" / "equiv_miter.ys"
    script.write_text(script.read_text() + "\n")             # package data counts too
    assert _eval(copy, cache)["cached"] is False


def test_code_version_covers_sources_and_scripts(tmp_path):
    shutil.copytree(ROOT / "eda", tmp_path / "eda", ignore=shutil.ignore_patterns("__pycache__"))
    base = code_version(tmp_path / "eda")
    assert base == code_version(tmp_path / "eda") and len(base) == 16
    (tmp_path / "eda" / "scripts" / "synth.ys").write_text("# other synthesis\n")
    assert code_version.__wrapped__(tmp_path / "eda") != base
