"""rtl-agent optimize: the loop on the real bundled model and real EDA tools, kept small
(adder16, 2 steps x 1 parent x 2 samples, 96 tokens). One uninterrupted run is shared by the
tests; the resume test kills a second run mid-step with SIGKILL and checks that --resume ends in
exactly the same state."""
import csv
import json
import math
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from designs import load_task
from eda.flow import evaluate
from eda.report import Report
from rtl_agent.jobs.optimize import RESUME_KEYS, OptimizeConfig, score, step_seed
from training.store import RunStore

ROOT = Path(__file__).resolve().parent.parent
ARGS = ["adder16", "--steps", "2", "--batch", "1", "--group", "2", "--max-tokens", "96", "--seed", "5", "--quiet",
        "--choice-group", "0", "--no-pnr",      # B*G samples a step; no routing at the end (tests/test_pnr.py)
        "--no-early-stop"]                      # every step runs: adder16's few options are all drawn by step 1
ENV = {**os.environ, "OMP_WAIT_POLICY": "PASSIVE", "PYTHONPATH": str(ROOT)}


def cli(out, *extra, **kw):
    return subprocess.Popen([sys.executable, "-m", "rtl_agent.cli", "optimize", *ARGS, "--out", str(out), *extra],
                            cwd=ROOT, env=ENV, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, **kw)


@pytest.fixture(scope="module")
def full_run(tmp_path_factory):
    out = tmp_path_factory.mktemp("opt") / "full"
    p = cli(out)
    log, _ = p.communicate(timeout=600)
    assert p.returncode == 0, log
    return out, log


def test_reward_by_stage_and_ppa():
    t = load_task("adder16")
    cfg = OptimizeConfig(task="adder16")
    ref = t.reference_sources()
    good = evaluate(t.flow_job(), ref)
    r, status, failed, ratio = score(good, good.ppa, cfg)
    assert (r, status, failed, ratio) == (0.0, "pass", None, 1.0)
    # a verified design twice as good gets log 2; a much worse one is floored above every penalty
    assert score(good, 2 * good.ppa, cfg)[0] == pytest.approx(math.log(2))
    assert score(good, good.ppa / 10, cfg)[0] == cfg.valid_floor > max(cfg.penalties.values())
    broken = {"adder16.v": "module adder16(input [15:0] a, b, input cin, output [15:0] sum, output cout);\n"
                           "  assign {cout, sum} = a - b + cin;\nendmodule\n"}
    bad = evaluate(t.flow_job(), broken)
    r, status, failed, _ = score(bad, good.ppa, cfg)
    assert failed == "sim" and r == cfg.penalties["sim"]
    assert score(None, good.ppa, cfg)[:3] == (-1.0, "extract", "extract")
    assert step_seed(5, 2, 0) == step_seed(5, 2, 0) != step_seed(5, 2, 1)


def test_unproven_equivalence_earns_no_ppa_reward():
    """bounded(N)/cosim(K) pass the flow but score the 'unproven' penalty (between an equivalence
    failure and the valid floor) unless accept_unproven; a proof earns the PPA reward."""
    t = load_task("adder16")
    ref = t.reference_sources()
    rep = evaluate(t.flow_job(), ref).to_dict()
    assert rep["stages"]["equiv"]["status"] == "proven"
    cfg = OptimizeConfig(task="adder16")
    assert cfg.penalties["equiv"] < cfg.penalties["unproven"] < cfg.valid_floor
    assert score(Report.from_dict(rep), 2 * rep["ppa"], cfg)[:2] == (pytest.approx(math.log(2)), "pass")
    for verdict in ("bounded(20)", "cosim(2000 vectors)"):
        unproven = Report.from_dict({**rep, "stages": {**rep["stages"],
                                                       "equiv": {**rep["stages"]["equiv"], "status": verdict}}})
        assert score(unproven, 2 * rep["ppa"], cfg) == (cfg.penalties["unproven"], "unproven", "equiv", None)
        opt_in = OptimizeConfig(task="adder16", accept_unproven=True)
        assert score(unproven, 2 * rep["ppa"], opt_in)[0] == pytest.approx(math.log(2))
    assert "accept_unproven" in RESUME_KEYS


def test_ppa_reward_is_granted_by_allowlist_only():
    """Only a proof earns the PPA reward: a passing report without an equivalence stage, or with a verdict
    that is neither a proof nor a known unproven one, gets the unproven penalty; PPA 0 (STA found no
    constrained path) or a missing delay is a failure of its own, never the reward cap."""
    t = load_task("adder16")
    rep = evaluate(t.flow_job(), t.reference_sources()).to_dict()
    cfg = OptimizeConfig(task="adder16", accept_unproven=True)
    no_stage = Report.from_dict({**rep, "stages": {k: v for k, v in rep["stages"].items() if k != "equiv"}})
    assert no_stage.status == "pass" and no_stage.equiv_status is None
    assert score(no_stage, 2 * rep["ppa"], cfg) == (cfg.penalties["unproven"], "unproven", "equiv", None)
    odd = Report.from_dict({**rep, "stages": {**rep["stages"], "equiv": {**rep["stages"]["equiv"],
                                                                         "status": "unknown(new-engine)"}}})
    assert score(odd, 2 * rep["ppa"], cfg)[1:3] == ("unproven", "equiv")
    for ppa in (0.0, None, -1.0):
        zero = Report.from_dict({**rep, "ppa": ppa, "delay_ns": 0.0 if ppa == 0.0 else None})
        r, status, failed, ratio = score(zero, rep["ppa"], cfg)
        assert (status, failed, ratio) == ("no-ppa", "sta", None) and r == cfg.penalties["sta"] < 0


@pytest.mark.slow
def test_loop_outputs_and_best_never_worse(full_run):
    out, log = full_run
    with RunStore(out / "run.sqlite") as st:
        steps = st.steps()
        assert [s["step"] for s in steps] == [0, 1, 2]
        ratios = [s["stats"]["metrics"]["best_ratio"] for s in steps]
        assert ratios[0] == 1.0 and all(b >= a for a, b in zip(ratios, ratios[1:])), ratios
        cands = st.candidates()
        assert len(cands) == 1 + 2 * 1 * 2              # the reference row + B*G per step
        assert len(st.decisions()) == 2 and all(d["cause"] for d in st.decisions())
        for s, d in zip(steps[1:], st.decisions()):
            if s["stats"]["metrics"]["flat_groups"]:      # equal rewards: no update, the controller stays put
                assert s["stats"]["train"] is None and d["cause"] == "no reward variance"
                assert d["eps_new"] == d["eps_old"]
            else:                                       # a group with variance: the LoRA step saw every sample
                assert s["stats"]["train"]["sequences"] == 2 and d["cause"] != "no reward variance"
    best = json.loads((out / "best.json").read_text())
    assert best["ratio"] >= 1.0 and (out / "best.v").read_text().strip().startswith(("module", "//", "`"))
    rows = list(csv.DictReader(open(out / "candidates.csv")))
    assert len(rows) == 5 and rows[0]["status"] == "reference"
    assert all(float(r["reward"]) <= 0 or r["failed_stage"] == "" for r in rows)
    html = (out / "report.html").read_text()
    assert html.count("data:image/png;base64,") == 4 and "KL-controller decisions" in html
    assert all((out / f"adapters/step_{k:03d}/adapter_model.safetensors").is_file() for k in (1, 2))
    assert "best PPA ratio" in log and ("no find: nothing the model wrote beat the reference" in log or "find: " in log)
    assert "noise floor" in log and "kinds tried" in log.replace("\n", " ") or "from a " in log.replace("\n", " ")
    kinds = {r["kind"] for r in rows[1:]}
    assert kinds <= {"transform", "spec", "rewrite", "diff", "decl", "line"} and len(kinds) >= 2    # 2 kinds per step
    # the last word on training counts the groups of both steps, and names why the untrained ones were not
    ms = [s["stats"]["metrics"] for s in steps[1:]]
    flat, groups = sum(m["flat_groups"] for m in ms), sum(m["groups"] for m in ms)
    line = " ".join(log.split())
    assert groups >= 2 and f"test-time training: {groups - flat} of {groups} groups trained" in line, line
    assert (flat == 0) == ("(not: " not in line)


@pytest.mark.slow
def test_resume_refuses_other_settings(full_run):
    out, _ = full_run
    p = subprocess.run([sys.executable, "-m", "rtl_agent.cli", "optimize", *ARGS[:-1], "--out", str(out),
                        "--resume", "--group", "3"], cwd=ROOT, env=ENV, capture_output=True, text=True, timeout=120)
    assert p.returncode == 2 and "group was 2, now 3" in p.stderr
    p = subprocess.run([sys.executable, "-m", "rtl_agent.cli", "optimize", *ARGS, "--out", str(out)],
                       cwd=ROOT, env=ENV, capture_output=True, text=True, timeout=120)
    assert p.returncode == 2 and "--resume" in p.stderr


@pytest.mark.slow
def test_sigkill_mid_step_then_resume_matches(full_run, tmp_path):
    ref_out, _ = full_run
    out = tmp_path / "killed"
    p = cli(out)
    events, killed_at = out / "events.jsonl", None
    deadline = time.time() + 500
    while time.time() < deadline and p.poll() is None:
        if events.exists():
            for line in events.read_text().splitlines():
                e = json.loads(line)
                if e["kind"] == "phase" and e.get("step") == 2 and e.get("phase") == "sampling":
                    killed_at = e
            if killed_at:
                p.send_signal(signal.SIGKILL)      # mid-step: the pool selected, nothing committed
                break
        time.sleep(0.05)
    p.wait(timeout=30)
    assert killed_at and p.returncode == -signal.SIGKILL, "the run finished before it could be killed"
    with RunStore(out / "run.sqlite") as st:
        assert st.last_step() == 1                 # step 2 was never committed
    r = cli(out, "--resume")
    log, _ = r.communicate(timeout=600)
    assert r.returncode == 0, log
    assert "resum" in log
    with RunStore(out / "run.sqlite") as a, RunStore(ref_out / "run.sqlite") as b:
        assert a.last_step() == b.last_step() == 2
        assert a.pool() == b.pool()                # same states, visits, rewards and pool RNG
        key = lambda c: (c["step"], c["idx"], c["text"], c["reward"], c["status"])  # noqa: E731
        assert [key(c) for c in a.candidates()] == [key(c) for c in b.candidates()]
        assert len(a.candidates(2)) == 2           # step 2 stored once, not twice
        assert [d["eps_new"] for d in a.decisions()] == [d["eps_new"] for d in b.decisions()]
    for k in (1, 2):                               # the LoRA weights follow the same trajectory
        fa = (out / f"adapters/step_{k:03d}/adapter_model.safetensors").read_bytes()
        fb = (ref_out / f"adapters/step_{k:03d}/adapter_model.safetensors").read_bytes()
        assert fa == fb, f"adapter of step {k} differs after resume"


@pytest.mark.slow
def test_run_stops_when_nothing_is_left_to_try(tmp_path):
    """adder16's library lists one transformation; with --no-pool the reference is every step's parent, so once it
    was drawn and a step's free-text answers all failed there is nothing left to try: the run stops before its
    budget, says why above its find, records it, and a --resume of the stopped run says it again without a step."""
    out = tmp_path / "stop"
    args = [sys.executable, "-m", "rtl_agent.cli", "optimize", "adder16", "--steps", "4", "--group", "2",
            "--choice-group", "0", "--max-tokens", "96", "--seed", "5", "--no-pool", "--no-pnr", "--no-cross-pdk",
            "--no-noise", "--quiet", "--out", str(out)]
    p = subprocess.run(args, cwd=ROOT, env=ENV, capture_output=True, text=True, timeout=900)
    assert p.returncode == 0, p.stdout + p.stderr
    with RunStore(out / "run.sqlite") as st:
        last, stopped = st.last_step(), st.meta("stopped")
        assert last < 4 and stopped == {"after": last, "reason": stopped["reason"]}, (last, stopped)
        drawn = [c for c in st.candidates() if c["step"] and c["payload"]["candidate"]["kind"] == "transform"]
        assert {c["payload"]["candidate"]["transform"]["label"] for c in drawn} == \
            {"replace the module body by {cout, sum} = a + b + cin"}
        free = [c for c in st.candidates(last) if c["payload"]["candidate"]["kind"] != "transform"]
        assert free and all(c["failed"] for c in free)
    text = " ".join(p.stdout.split())
    said = f"stopped after step {last} of 4: no untried option left"
    assert said in text and text.index(said) < text.rindex("best PPA ratio"), text[-1500:]
    assert "find" in text[text.index("test-time training"):] and "leaked" not in p.stdout + p.stderr
    r = subprocess.run(args + ["--resume"], cwd=ROOT, env=ENV, capture_output=True, text=True, timeout=300)
    assert r.returncode == 0 and said in " ".join(r.stdout.split()), r.stdout + r.stderr
    with RunStore(out / "run.sqlite") as st:
        assert st.last_step() == last and st.meta("stopped") == stopped
