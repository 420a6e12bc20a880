"""Verdict rules (eda.verdict), cocotb testbenches and the VerilogEval v2 suite, on the real tools.

For each preset a correct design passes and a wrong one fails with a diagnostic that names the
mismatch; the report says which rule decided (stages.sim.data.verdict_rule)."""
import json
import socket
import threading
import uuid
from pathlib import Path

import pytest

from designs import load_suite, load_task
from eda.config import require_shared
from eda.flow import FlowJob, evaluate
from eda import sandbox
from eda.simulate import simulate, verdict
from eda.verdict import PRESETS, VerdictError, detect_rule, get_rule

ROOT = Path(__file__).resolve().parent.parent
DESIGNS = ROOT / "designs"
ADDER_OK = (DESIGNS / "adder16" / "reference.v").read_text()
ADDER_BAD = ("module adder16(input [15:0] a, input [15:0] b, input cin, output [15:0] sum, output cout);\n"
             "  assign {cout, sum} = a + b;   // drops cin\nendmodule\n")
ADDER_COCOTB = DESIGNS / "adder16" / "test_adder16.py"
pytestmark = pytest.mark.requires("iverilog", "vvp", "yosys", modules=("cocotb", "cocotb_tools"))


def sim_stage(src: dict, tb, **kw):
    rep = evaluate(FlowJob(top=kw.pop("top"), tb=tb, stages=("lint", "sim"), use_cache=False, **kw), src)
    return rep, rep.stages.get("sim")


def diag_text(st) -> str:
    return "\n".join(str(d) for d in st.diagnostics)


# ---- rules as data ----------------------------------------------------------------------------

def test_rtllm_rule_unchanged():
    """The old hard-wired verdict, now the rtllm preset: same answers on the same printouts."""
    assert verdict("===========Your Design Passed===========")[0] == "pass"
    assert verdict("Test completed with 3 failures\n")[0] == "fail"
    assert verdict("===========Error===========\n") == ("fail", "testbench reported: ===========Error===========")
    assert verdict("all done") == ("fail", "testbench finished without printing its pass marker")
    assert verdict("0 errors\nYour Design Passed")[0] == "pass"


def test_custom_rules_and_errors():
    r = get_rule({"pass": r"ALL OK", "fail": [r"^FATAL"], "mismatches": r"errors:\s*(\d+)"})
    assert r.name == "custom"
    assert r.judge("errors: 0\nALL OK")[0] == "pass"
    st, why, facts = r.judge("errors: 4\nALL OK")
    assert st == "fail" and "errors: 4" in why and facts["mismatches"] == 4
    assert r.judge("errors: 0\n")[0] == "fail"                     # pass marker required
    assert r.judge("FATAL: x\nerrors: 0\nALL OK")[0] == "fail"
    only_count = get_rule('{"mismatches": "Mismatches: (\\\\d+)"}')   # JSON text, as `eval --verdict` takes
    assert only_count.judge("Mismatches: 0")[0] == "pass" and only_count.judge("done")[0] == "fail"
    for bad in ("nope", {"fail": ["x"]}, {"mismatches": "no group"}, {"pass": "("}, {"pass": "x", "extra": 1}):
        with pytest.raises(VerdictError):
            get_rule(bad)
    assert set(PRESETS) == {"rtllm", "verilog-eval", "cocotb"}


def test_detect_rule():
    ve = require_shared("benchmarks/verilog-eval-v2/dataset_spec-to-rtl/Prob050_kmap1_test.sv")
    assert detect_rule({"tb.v": (DESIGNS / "adder16" / "tb.v").read_text()}).name == "rtllm"
    assert detect_rule({ve.name: ve.read_text()}).name == "verilog-eval"
    assert detect_rule({"test_x.py": "import cocotb"}).name == "cocotb"


# ---- each preset: a correct design passes, a wrong one fails naming the mismatch ------------------

def test_rtllm_preset_on_project_testbench():
    tb = {"tb.v": (DESIGNS / "adder16" / "tb.v").read_text()}
    rep, st = sim_stage({"adder16.v": ADDER_OK}, tb, top="adder16")
    assert rep.ok and st.data["verdict_rule"] == "rtllm", diag_text(st)
    rep, st = sim_stage({"adder16.v": ADDER_BAD}, tb, top="adder16")
    assert st.status == "fail" and st.data["verdict_rule"] == "rtllm"
    assert "MISMATCH" in diag_text(st)


def _kmap1():
    t = load_task("Prob050_kmap1")
    return t, t.testbench_sources()


def test_verilog_eval_preset():
    t, tb = _kmap1()
    assert (t.top, t.ref_top, t.tb_top, t.verdict) == ("TopModule", "RefModule", "tb", "verilog-eval")
    rep, st = sim_stage(t.reference_sources(), tb, top=t.top, verdict=t.verdict, sim_flags=t.sim_flags)
    assert rep.ok, diag_text(st)
    assert st.data["verdict_rule"] == "verilog-eval" and st.data["mismatches"] == 0 and st.data["samples"] > 100
    wrong = {"top.sv": "module TopModule(input a, input b, input c, output out);\n assign out = a | b;\nendmodule\n"}
    rep, st = sim_stage(wrong, tb, top=t.top)           # rule detected from the testbench
    assert st.status == "fail" and st.data["verdict_rule"] == "verilog-eval" and st.data["mismatches"] > 0
    text = diag_text(st)
    assert "Mismatches:" in text and "Output 'out' has" in text, text


def test_verilog_eval_design_judged_by_rtllm_rule_fails():
    """The bug the issue reports, now only when asked for: RTLLM's rule on VerilogEval's testbench."""
    t, tb = _kmap1()
    rep, st = sim_stage(t.reference_sources(), tb, top=t.top, verdict="rtllm")
    assert st.status == "fail" and st.data["verdict_rule"] == "rtllm"
    assert "pass marker" in diag_text(st)


def test_custom_rule_through_evaluate():
    t, tb = _kmap1()
    rule = {"mismatches": r"Total mismatched samples is (\d+) out of (\d+)", "fail": [r"^TIMEOUT"]}
    rep, st = sim_stage(t.reference_sources(), tb, top=t.top, verdict=rule)
    assert rep.ok and st.data["verdict_rule"] == "custom" and st.data["mismatches"] == 0


def test_cocotb_preset_icarus():
    rep, st = sim_stage({"adder16.v": ADDER_OK}, [ADDER_COCOTB], top="adder16")
    assert rep.ok, diag_text(st) + st.log
    assert st.data["verdict_rule"] == "cocotb" and st.data["simulator"] == "icarus"
    assert st.data["tests"] == 2 and st.data["failed"] == 0
    rep, st = sim_stage({"adder16.v": ADDER_BAD}, [ADDER_COCOTB], top="adder16")
    assert st.status == "fail" and st.data["failed"] == 2
    text = diag_text(st)
    assert "cocotb test corners failed" in text and "expected 0x10000" in text, text
    assert any(d.file == "test_adder16.py" and d.line for d in st.diagnostics)


@pytest.mark.parametrize("task", ["counter8", "fsm_seq"])
def test_cocotb_project_testbenches(task):
    """The cocotb versions of the project testbenches accept the reference and reject a mutant."""
    ref = (DESIGNS / task / "reference.v").read_text()
    tb = [DESIGNS / task / f"test_{task}.py"]
    rep, st = sim_stage({f"{task}.v": ref}, tb, top=task)
    assert rep.ok, diag_text(st) + st.log
    assert st.data["tests"] >= 2
    bad = ref.replace("q + 8'd1", "q + 8'd2") if task == "counter8" else ref.replace("S3: next = din ? S4 : S2;",
                                                                                      "S3: next = din ? S4 : S0;")
    assert bad != ref
    rep, st = sim_stage({f"{task}.v": bad}, tb, top=task)
    assert st.status == "fail" and "expected" in diag_text(st), diag_text(st)


@pytest.mark.slow
@pytest.mark.requires("verilator")
def test_cocotb_on_verilator():
    st = simulate({"adder16.v": ADDER_BAD}, [ADDER_COCOTB], dut_top="adder16", simulators=("verilator",))
    assert st.status == "fail" and st.data["simulator"] == "verilator" and "expected" in diag_text(st)


def test_cocotb_test_that_raises_fails_the_stage():
    tb = {"test_boom.py": "import cocotb\n\n@cocotb.test()\nasync def boom(dut):\n    raise RuntimeError('kaboom')\n"}
    rep, st = sim_stage({"adder16.v": ADDER_OK}, tb, top="adder16")
    assert rep.status == "fail" and rep.failed_stage == "sim"
    assert "cocotb test boom failed" in diag_text(st) and "kaboom" in diag_text(st)


def test_cocotb_module_without_tests_fails():
    rep, st = sim_stage({"adder16.v": ADDER_OK}, {"test_empty.py": "x = 1\n"}, top="adder16")
    assert st.status == "fail", diag_text(st)


def test_cocotb_escape_is_contained(tmp_path):
    """A cocotb test module is untrusted code: writing outside its work dir and opening a socket must not
    reach the host (eda.sandbox.run's bubblewrap isolation: read-only root, no network)."""
    mode = getattr(sandbox, "isolation_mode", lambda: "none (eda.sandbox has no process isolation)")()
    assert mode == "bwrap", f"this test checks the sandbox's bubblewrap isolation; isolation is {mode}"
    target = tmp_path / "escaped.txt"
    tag = uuid.uuid4().hex[:12]
    host_paths = [target, Path(f"/etc/rtla_escape_{tag}"), Path(f"/tmp/rtla_escape_{tag}")]
    srv = socket.socket()
    srv.bind(("127.0.0.1", 0))
    srv.listen(1)
    srv.settimeout(15)
    port = srv.getsockname()[1]
    hits = []
    threading.Thread(target=lambda: hits.append(_accept(srv)), daemon=True).start()
    module = f'''import os, socket, cocotb
from cocotb.triggers import Timer

@cocotb.test()
async def escape(dut):
    tried = []
    # the host test folder, /etc, and the folder above the work dir (the host's /tmp)
    for path in ({str(target)!r}, "/etc/rtla_escape_{tag}", os.path.join(os.getcwd(), "..", "rtla_escape_{tag}")):
        try:
            with open(path, "w") as f:
                f.write("escaped")
            tried.append("wrote " + path)
        except OSError as e:
            tried.append(f"refused {{path}}: {{e.__class__.__name__}}")
    try:
        socket.create_connection(("127.0.0.1", {port}), timeout=3).sendall(b"escaped")
        tried.append("connected")
    except OSError as e:
        tried.append("no network: " + e.__class__.__name__)
    await Timer(1, unit="ns")
    print("ESCAPE-REPORT", tried)
'''
    try:
        rep, st = sim_stage({"adder16.v": ADDER_OK}, {"test_escape.py": module}, top="adder16")
    finally:
        escaped = [str(p) for p in host_paths if p.exists()]
        for p in host_paths:
            p.unlink(missing_ok=True)
        srv.close()
    assert not escaped, f"the cocotb module wrote outside its work dir: {escaped}"
    assert st.status == "pass" and "ESCAPE-REPORT" in st.log, st.log[-2000:]   # the module ran its attempts
    report = st.log[st.log.index("ESCAPE-REPORT"):].splitlines()[0]
    assert "connected" not in report, report
    # a write the sandbox allowed ("wrote" in the report) went to its private /tmp, not the host's
    assert hits in ([None], []), "the cocotb module opened a connection to the host"


def _accept(srv):
    try:
        c, _ = srv.accept()
        c.close()
        return "connected"
    except OSError:
        return None


# ---- task.yaml verdict / cocotb testbench --------------------------------------------------------

def test_task_yaml_verdict_and_cocotb_testbench(tmp_path):
    import shutil
    d = tmp_path / "adder16c"
    shutil.copytree(DESIGNS / "adder16", d)
    y = (d / "task.yaml").read_text().replace("testbench: tb.v", "testbench: test_adder16.py\nverdict: cocotb")
    (d / "task.yaml").write_text(y)
    t = load_task(d)
    assert t.verdict == "cocotb" and t.tb_top == "adder16"
    job = FlowJob(top=t.top, tb=t.testbench_sources(), verdict=t.verdict, stages=("lint", "sim"), use_cache=False)
    rep = evaluate(job, t.reference_sources())
    assert rep.ok and rep.stages["sim"].data["verdict_rule"] == "cocotb"
    (d / "task.yaml").write_text(y.replace("verdict: cocotb", "verdict: {fail: ['x']}"))
    with pytest.raises(ValueError, match="verdict"):
        load_task(d)


# ---- the VerilogEval suite -----------------------------------------------------------------------

def test_verilog_eval_suite_loads():
    tasks = load_suite("verilog-eval")
    assert len(tasks) == 156
    assert all(t.top == "TopModule" and t.ref_top == "RefModule" and t.tb_top == "tb" for t in tasks)
    assert all(t.spec.strip() for t in tasks) and sum("TopModule" in t.spec for t in tasks) > 150
    cats = {t.name: t.category for t in tasks}
    assert cats["Prob050_kmap1"] == "kmap" and cats["Prob107_fsm1s"] == "fsm" and cats["Prob004_vector2"] == "vector"
    assert sum(1 for t in tasks if t.sequential) > 50


def test_verilog_eval_regress_files_policy(tmp_path):
    """`regress --suite verilog-eval --policy files:DIR` with DIR/tN/ProbNNN_name.sv: a correct and a wrong try."""
    from rtl_agent.cli import main
    t = load_task("Prob050_kmap1")
    (tmp_path / "c" / "t1").mkdir(parents=True)
    (tmp_path / "c" / "t2").mkdir(parents=True)
    (tmp_path / "c" / "t1" / "Prob050_kmap1.sv").write_text(next(iter(t.reference_sources().values())))
    (tmp_path / "c" / "t2" / "Prob050_kmap1.v").write_text(
        "module TopModule(input a, input b, input c, output out);\n assign out = a & b;\nendmodule\n")
    out = tmp_path / "run"
    assert main(["regress", "--suite", "verilog-eval", "--designs", "Prob050_kmap1", "--policy",
                 f"files:{tmp_path / 'c'}", "-n", "2", "-k", "1", "--jobs", "1", "--out", str(out)]) == 0
    d = json.loads((out / "designs" / "Prob050_kmap1.json").read_text())
    assert d["reference"]["status"] == "pass" and d["reference"]["ppa"]
    s = {r["sample"]: r for r in d["samples"]}
    assert s["t1"]["func"] and not s["t2"]["func"] and "Mismatches" in s["t2"]["reason"]


@pytest.mark.requires("verilator")
def test_icarus_unsupported_systemverilog_lints_on_verilator():
    """Prob151's reference uses casts Icarus 11 does not support ("sorry"): Verilator decides the lint stage;
    a real error still fails."""
    t = load_task("Prob151_review2015_fsm")
    rep = evaluate(FlowJob(top=t.top, stages=("lint",), use_cache=False), t.reference_sources())
    assert rep.ok and "verilator" in rep.stages["lint"].tool, rep.to_json()
    broken = {k: v.replace("endmodule", "assign = 1;\nendmodule") for k, v in
              t.reference_sources().items()}
    assert evaluate(FlowJob(top=t.top, stages=("lint",), use_cache=False), broken).status == "fail"


@pytest.mark.slow
@pytest.mark.requires("verilator")
def test_verilog_eval_verilator_fallback_sim():
    t = load_task("Prob151_review2015_fsm")
    job = FlowJob(top=t.top, tb=t.testbench_sources(), verdict=t.verdict, sim_flags=t.sim_flags, stages=("lint",
                  "sim"), use_cache=False)
    rep = evaluate(job, t.reference_sources())
    st = rep.stages["sim"]
    assert rep.ok and st.data["simulator"] == "verilator" and st.data["mismatches"] == 0, rep.to_json()
