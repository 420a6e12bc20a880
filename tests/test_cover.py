"""Coverage closure (rtl-agent cover): real Verilator, real bundled model, tiny budgets."""
import csv
import json
import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

from designs import load_task
from eda import coverage as cov
from rtl_agent.jobs import cover
from rtl_agent.policy.base import Completion, Policy
from training.rows import Candidate, Context
from training.store import RunStore

ROOT = Path(__file__).resolve().parent.parent
pytestmark = pytest.mark.requires("verilator")        # missing: a failure naming scripts/setup.sh


@pytest.fixture(scope="module")
def task():
    return load_task("counter8")


@pytest.fixture(scope="module")
def policy():
    import torch
    torch.set_num_threads(1)        # see rtl-agent cover --threads: 2 threads crawl on a busy 2-core box
    from rtl_agent.policy import make_policy
    return make_policy("default")


def _rows(path):
    with open(path) as fh:
        return list(csv.DictReader(fh))


def test_target_parsing():
    assert cover.parse_target("line=95, branch=90,toggle=80") == {"line": 95.0, "branch": 90.0, "toggle": 80.0}
    for bad in ("", "line", "lines=90", "line=abc", "toggle=120"):
        with pytest.raises(ValueError):
            cover.parse_target(bad)
    with pytest.raises(ValueError, match="unknown metric 'lines'"):
        cover.parse_target("lines=90")


def test_extraction_repairs_truncated_body():
    text, why = cover.extract_stimulus("```verilog\nrst = 1;\n#20 rst = 0;\nbegin en = 1; repeat (30")
    assert not why and text.startswith("initial begin") and text.count("end") >= 2 and "$finish" in text
    assert cover.extract_stimulus("Sure! Here is how:")[0] == ""
    # with the DUT's inputs known, lines that cannot be stimulus are dropped, not compiled
    text, _ = cover.extract_stimulus("```verilog\n[nop]\ndef f() {\nrst = 1;\nalways #5 clk = ~clk;\n```", ["rst"])
    assert "rst = 1;" in text and "nop" not in text and "def" not in text and "always" not in text


def test_uncompilable_stimulus_is_a_penalised_verdict(task):
    cfg = cover.CoverConfig()
    text, _ = cover.extract_stimulus("```verilog\nfoo bar baz;\n```")
    r = cover.simulate(task, task.reference_sources(), text, cfg)
    assert r.status == "error" and r.diagnostics
    db = cov.CoverageDB()
    (reward, gain), = cover.score([r], db, ["line"], cover.REWARDS)
    assert reward == cover.REWARDS["error"] < 0 and gain == 0
    # and a stimulus that runs earns the share of the gap it closes
    good, _ = cover.extract_stimulus("rst = 1; #20 rst = 0; en = 1; repeat (20) @(negedge clk);")
    r2 = cover.simulate(task, task.reference_sources(), good, cfg)
    assert r2.ok
    (reward2, gain2), = cover.score([r2], db, ["line", "branch"], cover.REWARDS)
    assert 0 < reward2 <= 1 and gain2 > 0


def test_stops_when_target_met_without_loading_a_model(task, tmp_path):
    cfg = cover.CoverConfig(target={"line": 100.0, "branch": 100.0}, budget=4)
    s = cover.run_cover(task, tmp_path / "run", cfg, policy_spec="no-such-policy", log=lambda *a: None)
    # the random phase runs to its plateau (every style once; the budget of 4 ends it), no model
    assert s["met"] and s["simulations"] == s["random_runs"] == 4 and s["coverage"]["line"]["pct"] == 100.0
    assert s["model_samples"] == 0 and s["attribution"]["model"] == 0
    assert (tmp_path / "run" / "suite" / "random.sv").is_file()
    # the kept suite replays to the same points (rtl-agent cover --replay RUN)
    r = cover.replay(tmp_path / "run", log=lambda *a: None)
    assert r["same"] and r["runs"] == [{"file": "random.sv", "plusargs": ["+seed=0"], "status": "pass"}]
    assert "TN:random" in (tmp_path / "run" / "coverage.info").read_text()


def test_metric_without_points_is_met_vacuously(tmp_path):
    # adder16 is combinational: Verilator records no line points, so line=50 holds vacuously
    s = cover.run_cover(load_task("adder16"), tmp_path / "run", cover.CoverConfig(target={"line": 50.0}, budget=16),
                        policy_spec="no-such-policy", log=lambda *a: None)
    # met after the plateau (5 runs): no model, the rest of the budget goes to random
    assert s["met"] and s["vacuous"] == ["line"] and s["model_samples"] == 0 and s["random_runs"] == 16
    assert s["coverage"]["line"] == {"covered": 0, "total": 0, "pct": None, "target": 50.0, "met": True, "vacuous": True}


def test_unknown_metric_fails_before_any_simulation(tmp_path):
    r = subprocess.run([sys.executable, "-m", "rtl_agent.cli", "cover", "counter8", "--target", "lines=90",
                        "--out", str(tmp_path / "run")], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert r.returncode != 0 and "unknown metric 'lines'" in r.stderr and not (tmp_path / "run").exists()


def test_holes_name_lines_and_conditions(task):
    db = cov.CoverageDB(task.reference_sources())
    r = cover.simulate(task, task.reference_sources(), "initial begin rst = 1; #30 $finish; end", cover.CoverConfig())
    db.add(r.points)
    hs = cover.holes(db, ["line", "branch"], 6)
    assert hs and all(h.startswith("line ") and "`" in h for h in hs)
    assert any(" inside `" in h for h in hs)           # the enclosing if/else, read from the source
    msgs = cover.build_prompt(task, db, cover.CoverConfig(), random_runs=3)
    assert task.reference_sources()["reference.v"].strip() in msgs[-1]["content"]   # the whole DUT
    assert "// from: random" in msgs[-1]["content"] and hs[0] in msgs[-1]["content"]


def test_model_stimulus_continues_from_the_random_state(tmp_path):
    # multi_booth_8bit: plain random stays at 34% (it needs a reset pulse); one random run, then a
    # body that says `// from: random` runs after that run's testbench, with its seed
    t = load_task("multi_booth_8bit")
    env = cover.CoverEnv(t, tmp_path, cover.CoverConfig(random_budget=1, budget=4), "none")
    rows = env.start(Context(tmp_path))
    assert [r.payload["kind"] for r in rows] == ["random"] and env.sims[0]["plusargs"] == ["+seed=0"]
    cand = env.extract("```verilog\n// from: random\nreset = 1;\n@(negedge clk);\nreset = 0;\n"
                       "repeat (40) @(negedge clk);\n$finish;\n```")
    assert isinstance(cand, Candidate)
    assert "wait (rtla_done)" in cand.value[0] and cand.value[1] == ["+seed=0"]
    assert env.extract("```verilog\nreset = 1;\n#20 $finish;\n```").value[1] == []      # from reset
    none = env.extract("Sure! Here is how:")          # no stimulus: the row records the completion
    assert none.value is None and none.text == "Sure! Here is how:"
    (row,), = env.score(Context(tmp_path), 1, [None], [[cand]])
    assert row.status == "pass" and row.payload["gain"] > 0 and row.payload["accepted"]
    assert row.metrics["gain"] == row.payload["gain"] and row.valid


@pytest.mark.slow
def test_random_first_then_the_model_on_the_holes(policy, tmp_path):
    # fsm_seq: four random runs leave the FSM arc S4->S0 (reset right after the detection) unseen, so the
    # model gets one tiny sample; its prompt names that hole
    t = load_task("fsm_seq")
    # (formal=False: the formal phase after the model would close that arc; see the formal tests below)
    cfg = cover.CoverConfig(target={"fsm_arc": 100.0}, budget=5, random_budget=4, group=1, max_tokens=24, train=False,
                            formal=False)
    s = cover.run_cover(t, tmp_path / "run", cfg, policy=policy, log=lambda *a: None)
    assert s["random_runs"] == 4 and s["model_samples"] == 1 and s["simulations"] == 5
    assert s["all_types"]["fsm_arc"][1] == 13 and "state: S4->S0" in " ".join(s["uncovered"])
    rows = _rows(tmp_path / "run" / "coverage.csv")
    assert [r["kind"] for r in rows] == ["random"] * 4 + ["llm"]
    env = cover.CoverEnv(t, tmp_path / "x", cfg, "default")
    env.sims = cover._state(RunStore(tmp_path / "run" / "run.sqlite"))
    env.db = cover._union(env.sims, env.sources)
    env.attach(policy)
    (g,) = env.groups(Context(tmp_path / "x"), 1)
    assert "FSM state: S4->S0 never seen (transition)" in g.prompt[-1]["content"] and g.info["mode"] == "whole"


@pytest.mark.slow
def test_loop_writes_run_folder(policy, tmp_path):
    # gray_counter: one random run leaves toggles uncovered, so the LLM steps run
    task = load_task("gray_counter")
    out = tmp_path / "run"
    cfg = cover.CoverConfig(target={"line": 100.0, "branch": 100.0, "toggle": 100.0}, budget=3, group=2,
                            max_tokens=96, random_budget=1, train=True)
    s = cover.run_cover(task, out, cfg, policy=policy, log=lambda *a: None)
    assert s["simulations"] == 3 and sum(s["verdicts"].values()) == 3
    for f in ("coverage.html", "coverage.info", "coverage.txt", "coverage.png", "summary.json", "run.sqlite"):
        assert (out / f).is_file() and (out / f).stat().st_size > 0, f
    rows = _rows(out / "coverage.csv")
    assert [int(r["sim"]) for r in rows] == [1, 2, 3]
    # the random run is kept; coverage never decreases along the run
    assert rows[0]["status"] == "pass" and rows[0]["kind"] == "random" and (out / "suite" / "random.sv").is_file()
    totals = [float(r["total_pct"]) for r in rows]
    assert totals[0] > 0 and totals == sorted(totals)
    for r in rows:
        if r["status"] != "pass":
            assert float(r["reward"]) < 0           # failures are penalised verdicts
    assert "SF:reference.v" in (out / "coverage.info").read_text()
    assert sorted(p.name for p in (out / "suite").glob("*.sv")) == sorted(Path(a).name for a in s["accepted"])
    summ = json.loads((out / "summary.json").read_text())
    assert set(summ["coverage"]) == {"line", "branch", "toggle"} and summ["why_uncovered"]
    # an existing run is not silently overwritten
    with pytest.raises(cover.RunFolderError):
        cover.run_cover(task, out, cfg, policy=policy, log=lambda *a: None)


@pytest.mark.slow
def test_resume_after_kill_continues(tmp_path):
    out = tmp_path / "run"
    cmd = [sys.executable, "-m", "rtl_agent.cli", "cover", "counter8", "--target", "line=100,branch=100,toggle=100",
           "--budget", "4", "--group", "1", "--no-train", "--max-tokens", "64", "--random-budget", "0",
           "--out", str(out)]
    env = dict(os.environ, PYTHONPATH=str(ROOT), OMP_NUM_THREADS="1")
    p = subprocess.Popen(cmd, cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                         start_new_session=True)
    t0 = time.time()
    try:
        while time.time() - t0 < 150:       # kill once the first step is committed
            if (out / "run.sqlite").exists():
                with sqlite3.connect(out / "run.sqlite") as db:
                    try:
                        n = db.execute("SELECT COUNT(*) FROM candidates").fetchone()[0]
                    except sqlite3.OperationalError:
                        n = 0
                if n >= 1:
                    break
            if p.poll() is not None:
                break
            time.sleep(0.3)
    finally:
        if p.poll() is None:
            os.killpg(p.pid, signal.SIGKILL)
        p.wait()
    with sqlite3.connect(out / "run.sqlite") as db:
        before = db.execute("SELECT step, idx, text FROM candidates ORDER BY step, idx").fetchall()
    assert 1 <= len(before) < 4, "the run should have been killed part-way"
    r = subprocess.run(cmd + ["--resume"], cwd=ROOT, env=env, capture_output=True, text=True, timeout=600)
    assert r.returncode in (0, 1), r.stderr[-2000:]
    with sqlite3.connect(out / "run.sqlite") as db:
        after = db.execute("SELECT step, idx, text FROM candidates ORDER BY step, idx").fetchall()
    assert after[:len(before)] == before                    # nothing lost
    assert len(after) == 4 and len({(s, i) for s, i, _ in after}) == 4
    assert [int(row["sim"]) for row in _rows(out / "coverage.csv")] == [1, 2, 3, 4]   # nothing duplicated
    assert json.loads((out / "summary.json").read_text())["simulations"] == 4


def _cover_cli(out, *extra):
    cmd = [sys.executable, "-m", "rtl_agent.cli", "cover", "gray_counter", "--target", "line=100,branch=100,toggle=100",
           "--budget", "5", "--group", "2", "--max-tokens", "48", "--random-budget", "1", "--out", str(out), *extra]
    env = dict(os.environ, PYTHONPATH=str(ROOT), OMP_NUM_THREADS="1", OMP_WAIT_POLICY="PASSIVE")
    return subprocess.Popen(cmd, cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                            start_new_session=True)


@pytest.mark.slow
def test_sigkill_mid_step_then_resume_matches(tmp_path):
    """With training on: killed while step 2 samples (step 1 committed), then --resume, the run
    ends exactly where an uninterrupted one does (same stimuli, rewards, decisions, adapter bytes).
    tests/test_optimize.py kills its run while a step trains."""
    ref = tmp_path / "full"
    p = _cover_cli(ref)
    log, _ = p.communicate(timeout=900)
    assert p.returncode in (0, 1), log              # 1: target not met, which is expected here
    out = tmp_path / "killed"
    p = _cover_cli(out)
    events, killed = out / "events.jsonl", False
    deadline = time.time() + 600
    while time.time() < deadline and p.poll() is None:
        # step 2 is sampling (tens of seconds on CPU; a flat group may skip training, so that phase is
        # not always there): step 1 is committed, step 2 is not
        if events.exists() and any(json.loads(x).get("step") == 2 and json.loads(x).get("phase") == "sampling"
                                   for x in events.read_text().splitlines()):
            os.killpg(p.pid, signal.SIGKILL)
            killed = True
            break
        time.sleep(0.05)
    p.wait(timeout=30)
    assert killed, "the run finished before it could be killed"
    from training.store import RunStore
    with RunStore(out / "run.sqlite") as st:
        assert st.last_step() == 1
    r = _cover_cli(out, "--resume")
    log, _ = r.communicate(timeout=900)
    assert r.returncode in (0, 1), log
    with RunStore(out / "run.sqlite") as a, RunStore(ref / "run.sqlite") as b:
        assert a.last_step() == b.last_step() == 2
        key = lambda c: (c["step"], c["idx"], c["text"], c["reward"], c["status"])  # noqa: E731
        assert [key(c) for c in a.candidates()] == [key(c) for c in b.candidates()]
        assert [d["eps_new"] for d in a.decisions()] == [d["eps_new"] for d in b.decisions()]
    for k in (1, 2):
        fa = (out / f"adapters/step_{k:03d}/adapter_model.safetensors").read_bytes()
        fb = (ref / f"adapters/step_{k:03d}/adapter_model.safetensors").read_bytes()
        assert fa == fb, f"adapter of step {k} differs after resume"
    assert [r["sim"] for r in _rows(out / "coverage.csv")] == [r["sim"] for r in _rows(ref / "coverage.csv")]


@pytest.mark.slow
def test_cocotb_stimulus_merges_with_verilog_points(tmp_path):
    # ~1 min: cocotb's Verilator build compiles the whole runtime (no cache in that form)
    t = load_task("counter8")
    env = cover.CoverEnv(t, tmp_path, cover.CoverConfig(random_budget=1, budget=4), "none")
    env.start(Context(tmp_path))
    keys = set(env.db.points)
    cand = env.extract("Here:\n```python\nasync def stimulus(dut):\n    dut.rst.value = 1\n"
                       "    await ClockCycles(dut.clk, 2)\n    dut.rst.value = 0\n    dut.en.value = 1\n"
                       "    await ClockCycles(dut.clk, 300)\n```")
    assert cand.value == [cover.extract_cocotb(cand.value[0]), []] and cov.is_cocotb(cand.value[0])
    (row,), = env.score(Context(tmp_path), 1, [None], [[cand]])
    assert row.status == "pass", row.payload["diagnostics"]
    assert set(env.db.points) == keys            # the same points as the Verilog runs: one union


def test_formal_phase_closes_a_hole_with_a_witness_and_waives_the_unreachable(tmp_path):
    # fsm_seq after 4 random runs: the arc S4->S0 (only through a reset in S4) is open, and the case
    # `default:` of the next-state logic cannot be reached from reset (the state only takes S0..S4)
    cfg = cover.CoverConfig(target={"line": 100.0, "fsm_arc": 100.0}, budget=4, random_budget=4, patience=5,
                            target_of="reachable")
    run, logs = tmp_path / "run", []
    s = cover.run_cover(load_task("fsm_seq"), run, cfg, policy_spec="no-such-policy", log=logs.append)
    assert s["model_samples"] == 0 and s["formal"]["ran"] and s["formal"]["mode"] == "normal"
    by = {e["point"].split("  `")[0]: e for e in s["points"]}
    default = next(e for p, e in by.items() if p.startswith("reference.v:22 line"))
    arc = next(e for p, e in by.items() if "fsm_arc state: S4->S0" in p)
    assert default["source"] == "unreachable" and default["method"] == "abc-pdr" and default["bound"] == "unbounded"
    assert arc["source"] == "formal"
    assert s["sources"]["formal"] >= 1 and s["sources"]["unreachable"] == 1 and s["sources"]["undecided"] == 0
    # the target holds over reachable points only
    assert not s["met_all"] and s["met_reachable"] and s["met"] and s["reachable_pct"] == 100.0 > s["total_pct"]
    assert s["coverage_reachable"]["line"]["pct"] == 100.0 and s["coverage"]["line"]["pct"] < 100.0
    # the witness joined the kept suite and replays to the recorded points
    m = json.loads((run / "suite" / "manifest.json").read_text())
    assert {"file": "formal.sv", "origin": "formal"}.items() <= next(e for e in m["entries"] if e["origin"] == "formal").items()
    assert (run / "suite" / "formal.sv").is_file() and cover.replay(run, log=lambda *a: None)["same"]
    info, page = (run / "coverage.info").read_text(), (run / "coverage.html").read_text()
    assert "TN:formal" in info and "TN:proven_unreachable" in info and "Proven unreachable (waived)" in page
    # a resume reuses formal.json instead of deciding again
    logs.clear()
    s2 = cover.run_cover(load_task("fsm_seq"), run, cfg, policy_spec="no-such-policy", resume=True, log=logs.append)
    assert any("reusing formal.json" in x for x in logs) and s2["sources"] == s["sources"]


def test_no_formal_leaves_holes_open(tmp_path):
    cfg = cover.CoverConfig(target={"line": 100.0}, budget=4, random_budget=4, patience=5, formal=False)
    s = cover.run_cover(load_task("fsm_seq"), tmp_path / "run", cfg, policy_spec="no-such-policy", log=lambda *a: None)
    assert not s["formal"]["ran"] and s["sources"]["open"] >= 2 and s["sources"]["formal"] == 0
    assert not (tmp_path / "run" / "formal.json").exists() and not (tmp_path / "run" / "suite" / "formal.sv").exists()


ONEHOT = """module oh2 (input clk, input rst_n, input go, output hit);
    reg [1:0] s;
    always @(posedge clk) begin
        if (!rst_n) s <= 2'b01;
        else case (s)
            2'b01: s <= go ? 2'b10 : 2'b01;
            2'b10: s <= 2'b01;
            default: s <= 2'b01;
        endcase
    end
    assign hit = s[1];
endmodule
"""
ONEHOT_TB = """`timescale 1ns/1ps
module tb_oh2;
    reg clk = 0, rst_n = 0, go = 0;
    wire hit;
    oh2 dut(.clk(clk), .rst_n(rst_n), .go(go), .hit(hit));
    always #5 clk = ~clk;
    initial begin
        @(negedge clk); rst_n = 1; go = 1;
        @(negedge clk); if (!hit) $display("Error: no hit");
        $display("Your Design Passed"); $finish;
    end
endmodule
"""


class OneStimulus(Policy):
    """The "model" of a job-accounting test: always the same stimulus (the job's counting is under test)."""
    prefill_ok = True

    def __init__(self, text):
        self.text = text

    def sample(self, prompts, n=1, temperature=1.0, top_p=1.0, max_tokens=256, stop=None, seed=None, prefill=None):
        return [[Completion((prefill or "") + self.text, [1], [0.0], [0], "stop") for _ in range(n)] for _ in prompts]


def test_a_point_reached_outside_the_reset_protocol_is_a_conflict_not_a_closure(tmp_path):
    # `default:` of oh2 runs only from the all-zero start state, which no input sequence reaches once reset
    # has been applied: this stimulus releases reset before the first edge, so it "closes" the point
    d = tmp_path / "oh2"
    d.mkdir()
    (d / "reference.v").write_text(ONEHOT)
    (d / "tb.v").write_text(ONEHOT_TB)
    (d / "spec.md").write_text("# oh2\nTwo-state one-hot machine; `hit` while in the second state.\n")
    (d / "task.yaml").write_text("name: oh2\ntop: oh2\nspec: spec.md\npdk: nangate45\nperiod_ns: 10\nclock: clk\n"
                                 "reset: rst_n\nreset_active_low: true\nreference: reference.v\ntestbench: tb.v\nports:\n"
                                 + "".join(f"  - {{name: {n}, dir: {io}, width: 1}}\n" for n, io in
                                           (("clk", "input"), ("rst_n", "input"), ("go", "input"), ("hit", "output"))))
    stim = ("```verilog\ninitial begin\n  rst_n = 1; go = 0;\n  repeat (3) @(negedge clk);\n  rst_n = 0;\n"
            "  @(negedge clk); rst_n = 1;\n  repeat (6) begin @(negedge clk); go = ~go; end\n  $finish;\nend\n```")
    cfg = cover.CoverConfig(target={"line": 100.0}, budget=3, random_budget=2, patience=5, group=1, train=False,
                            target_of="reachable")
    s = cover.run_cover(load_task(d), tmp_path / "run", cfg, policy=OneStimulus(stim), log=lambda *a: None)
    assert s["model_samples"] == 1 and s["model_verdicts"] == {"pass": 1}, s["model_verdicts"]
    default = next(e for e in s["points"] if e["type"] == "line" and "default" in e["point"])
    assert default["source"] == "conflict" and default["method"] == "abc-pdr", default
    assert s["sources"]["conflict"] == 1 and s["attribution"]["conflict"] == 1
    assert not any("default" in x for x in s["closed_by_model"]) and s["conflicts"]
    assert s["reachable_pct"] == 100.0 and s["met_reachable"]     # the conflict is not a reachable point
    # a stimulus writing into the DUT is refused before it runs
    from eda import stimulus
    assert stimulus.screen_stimulus("initial begin uut.s = 2'b00; end")
    assert stimulus.screen_stimulus("initial begin #3 force uut.s = 0; end")
    assert not stimulus.screen_stimulus("initial begin if (uut.s <= 1) go = 1; end")
