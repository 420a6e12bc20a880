"""optimize and cover pointed at a design file, no task folder (issue 49): the bundled model and the real flow on
the corpus's axis_register, kept short. The task they make lands in runs/tasks/<top> under the working folder."""
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from eda.config import require_shared

ROOT = Path(__file__).resolve().parent.parent


def _cli(args, cwd):
    env = dict(os.environ, PYTHONPATH=str(ROOT), OMP_NUM_THREADS="1")
    return subprocess.run([sys.executable, "-m", "rtl_agent.cli", *args], cwd=cwd, env=env, capture_output=True,
                          text=True, timeout=900)


@pytest.mark.slow
def test_optimize_a_design_file(tmp_path):
    rtl = require_shared("corpus/verilog-axis/rtl/axis_register.v")
    out = tmp_path / "run"
    r = _cli(["optimize", str(rtl), "--top", "axis_register", "--steps", "1", "--batch", "1", "--group", "2",
              "--max-tokens", "48", "--no-noise", "--no-ranges", "--no-cross-pdk", "--quiet", "--out", str(out)],
             tmp_path)
    assert r.returncode == 0, r.stderr[-2000:]
    assert (tmp_path / "runs" / "tasks" / "axis_register" / "task.yaml").is_file()
    best = json.loads((out / "best.json").read_text())
    assert best["ppa"] > 0 and best["ratio"] >= 1.0     # never worse than the design it was given


@pytest.mark.slow
def test_cover_a_design_file(tmp_path):
    rtl = require_shared("corpus/verilog-axis/rtl/axis_register.v")
    out = tmp_path / "cov"
    r = _cli(["cover", str(rtl), "--top", "axis_register", "--target", "line=100", "--budget", "2", "--group", "1",
              "--no-train", "--max-tokens", "48", "--random-budget", "1", "--no-formal", "--out", str(out)], tmp_path)
    assert r.returncode in (0, 1), r.stderr[-2000:]        # 1: target not met, still a finished run
    summ = json.loads((out / "summary.json").read_text())
    assert summ["coverage"]["line"]["covered"] > 0


def test_cover_stops_on_a_design_that_does_not_build(tmp_path):
    # Verilator refuses a zero replication outside a concatenation (the corpus's axil_adapter): cover used to run
    # its whole budget and report "no stimulus ran to completion"
    (tmp_path / "zrep.v").write_text("module zrep(input clk, input [3:0] a, output reg [3:0] y);\n"
                                     "  always @(posedge clk) y <= a + {0{a}};\nendmodule\n")
    r = _cli(["cover", str(tmp_path / "zrep.v"), "--top", "zrep", "--budget", "2", "--random-budget", "2",
              "--no-formal", "--out", str(tmp_path / "cov")], tmp_path)
    assert r.returncode == 2 and "does not build under Verilator" in r.stderr, (r.returncode, r.stderr[-1500:])
    assert "Traceback" not in r.stderr and len(r.stderr.strip().splitlines()) == 1
