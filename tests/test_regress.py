"""`rtl-agent regress`: exact counts on hand-made candidates, pass@k, resume after a kill."""
import csv
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from rtl_agent.jobs.regress import pass_at_k

ROOT = Path(__file__).resolve().parent.parent
GOOD = "module adder16(input [15:0] a, input [15:0] b, input cin, output [15:0] sum, output cout);\n" \
       "  assign {cout, sum} = a + b + cin;\nendmodule\n"
GOOD_ALT = "module adder16(input [15:0] a, input [15:0] b, input cin, output [15:0] sum, output cout);\n" \
           "  wire [16:0] t = {1'b0, a} + {1'b0, b};\n  assign {cout, sum} = t + cin;\nendmodule\n"
SYNTAX = GOOD.replace("cin;", "cin")
WRONG = GOOD.replace("+ cin", "")          # drops the carry-in: the testbench must catch it
GRAY_GOOD = (ROOT / "designs/gray_counter/reference.v").read_text()


def rtl_agent(*args, **kw):
    return subprocess.run([sys.executable, "-m", "rtl_agent.cli", *args], capture_output=True, text=True,
                          cwd=ROOT, **kw)


def test_pass_at_k_matches_closed_form():
    assert pass_at_k(5, 0, 1) == 0.0 and pass_at_k(5, 5, 5) == 1.0
    assert pass_at_k(4, 2, 1) == pytest.approx(0.5)
    assert pass_at_k(10, 3, 5) == pytest.approx(1 - (7 * 6 * 5 * 4 * 3) / (10 * 9 * 8 * 7 * 6))
    assert pass_at_k(3, 1, 5) != pass_at_k(3, 1, 5)   # NaN: fewer samples than k


def test_files_policy_counts(tmp_path):
    cands = tmp_path / "cands"
    for i, (a, g) in enumerate([(GOOD, GRAY_GOOD), (SYNTAX, "garbage"), (WRONG, None), (GOOD_ALT, GRAY_GOOD)], 1):
        (cands / f"t{i}").mkdir(parents=True)
        (cands / f"t{i}" / "adder16.v").write_text(a)
        if g is not None:
            (cands / f"t{i}" / "gray_counter.v").write_text(g)
    out = tmp_path / "run"
    r = rtl_agent("regress", "--suite", "designs", "--designs", "adder16,gray_counter", "--policy",
                  f"files:{cands}", "-n", "4", "-k", "1,3", "--out", str(out))
    assert r.returncode == 0, r.stderr + r.stdout
    rows = {row["design"]: row for row in csv.DictReader(open(out / "results.csv"))}
    a = rows["adder16"]
    assert (a["samples"], a["syntax_pass"], a["func_pass"]) == ("4", "3", "2")
    assert float(a["pass@1"]) == pytest.approx(0.5) and float(a["pass@3"]) == pytest.approx(1.0)
    assert (a["fail_lint"], a["fail_sim"]) == ("1", "1")
    assert float(a["ppa_ratio"]) > 0
    g = rows["gray_counter"]
    assert (g["samples"], g["syntax_pass"], g["func_pass"], g["fail_extract"]) == ("4", "2", "2", "1")
    assert float(g["pass@1"]) == pytest.approx(0.5)
    assert float(g["ppa_ratio"]) == pytest.approx(1.0)   # the reference itself is the best candidate
    s = json.loads((out / "summary.json").read_text())["summary"]
    assert s["pass@1"] == pytest.approx(0.5) and s["designs"] == 2
    assert (out / "report.html").read_text().count("data:image/png;base64") == 2


@pytest.mark.slow      # a cold-cache regression of 7 designs through every stage, killed and resumed
def test_killed_regression_resumes(tmp_path):
    out = tmp_path / "run"
    args = [sys.executable, "-m", "rtl_agent.cli", "regress", "--suite", "designs", "--policy", "reference",
            "--jobs", "1", "--out", str(out), "--designs", "adder16,alu8,counter8,crc8,fsm_seq,gray_counter,lzc16"]
    env = dict(os.environ, RTL_AGENT_CACHE=str(tmp_path / "cache"))   # cold cache: the run takes a while
    p = subprocess.Popen(args, cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.time() + 120
    while time.time() < deadline and len(list((out / "designs").glob("*.json"))) < 2:
        time.sleep(0.05)
    p.send_signal(signal.SIGKILL)
    p.wait()
    done = {f.name: f.stat().st_mtime_ns for f in (out / "designs").glob("*.json")}
    assert 2 <= len(done) < 7
    r = subprocess.run(args, cwd=ROOT, env=env, capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    assert f"resuming: {len(done)} design(s) already finished" in " ".join(r.stdout.split())
    assert all((out / "designs" / n).stat().st_mtime_ns == m for n, m in done.items())   # not re-evaluated
    assert len(list(csv.DictReader(open(out / "results.csv")))) == 7


def test_run_folder_refuses_another_temperature(tmp_path):
    from rtl_agent.commands.regress import _same_policy
    _same_policy(tmp_path, "vllm:default", "default@x")          # sampled at 0.8: says nothing, as older folders
    assert json.loads((tmp_path / "policy.json").read_text()) == {"policy": "vllm:default", "adapter": "default@x"}
    _same_policy(tmp_path, "vllm:default", "default@x", 0.8)
    with pytest.raises(ValueError, match="temperature"):
        _same_policy(tmp_path, "vllm:default", "default@x", 0.2)
