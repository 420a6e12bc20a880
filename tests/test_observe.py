"""Equivalence modulo the specification's don't-cares (eda.observe, issue #19), on RTLLM designs and
small hand-written ones: a difference in a free value is proven, one in a defined output (a qualifier
included) is a counterexample that names the rule."""
import re

import pytest
import yaml

from conftest import require
from designs import load_suite, load_task
from designs.rtllm import OBSERVE
from designs.task import TaskError, load_project_task
from eda.observe import Observe, ObserveError, equivalence, parse, wrap


@pytest.fixture(autouse=True)
def _tools():
    require("yosys")
    require("iverilog")


def _sub(text: str, old: str, new: str) -> str:
    assert old in text, old
    return text.replace(old, new)


def _check(name: str, edit, observe=True):
    t = load_task(name)
    ref = t.reference_sources()
    cand = {f: edit(x) for f, x in ref.items()}
    return equivalence(cand, ref, t.top, t.observe if observe else None, clock=t.clock, reset=t.reset,
                       reset_active_low=t.reset_active_low, timeout_s=60)


ACCU_GATED = [("output  reg [9:0]   data_out", "output [9:0] data_out"), ("data_out <=", "acc <="),
              ("data_out +", "acc +"),
              ("reg [9:0]   data_out_reg;", "reg [9:0] data_out_reg, acc;\nassign data_out = valid_out ? acc : 10'd0;")]


def _edits(pairs):
    def f(text):
        for old, new in pairs:
            text = _sub(text, old, new)
        return text
    return f


# (design, candidate differing only where the rule frees it, differing in a gated output, in a qualifier)
CASES = {
    "accu": (ACCU_GATED,
             ACCU_GATED[:3] + [(ACCU_GATED[3][0], "reg [9:0] data_out_reg, acc;\nassign data_out = valid_out ? acc ^ 10'd4 : 10'd0;")],
             [("count == 'd3", "count == 'd2")]),
    "width_8to16": ([("else if(valid_in && flag)\n\t\tdata_out", "else if(valid_in)\n\t\tdata_out"),
                     ("data_out <= {data_lock, data_in}", "data_out <= flag ? {data_lock, data_in} : {data_in, data_in}")],
                    [("data_out <= {data_lock, data_in}", "data_out <= {data_in, data_lock}")],
                    [("valid_out <= 1'd1", "valid_out <= !data_in[0]")]),
    "adder_pipe_64bit": ([("assign result = {c4, s4, s3_ff1, s2_ff2, s1_ff3};",
                           "assign result = o_en ? {c4, s4, s3_ff1, s2_ff2, s1_ff3} : 65'h1_0000_0000_0000_0001;")],
                         [("assign result = {c4, s4, s3_ff1, s2_ff2, s1_ff3};",
                           "assign result = {c4, s4, s3_ff1, s2_ff2, s1_ff3} ^ 65'd2;")],
                         [("o_en <= stage3;", "o_en <= stage3 & ~adda[0];")]),
    "ROM": ([("dout = mem[addr];", "dout = addr < 4 ? mem[addr] : 16'hFFFF;")],
            [("mem[2] = 16'hC2C2;", "mem[2] = 16'hC2C3;")],
            None),
    "alu": ([(": 1'bz;", ": 1'b1;")],
            [("(aluc == SLT) ? (a_signed < b_signed) : (a < b)", "(aluc == SLT) ? (a < b) : (a < b)")],
            None),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_free_difference_proven_defined_difference_refuted(name):
    free, gated, qual = CASES[name]
    st = _check(name, _edits(free))
    assert st.status == "proven", (st.status, [d.message for d in st.diagnostics])
    # ROM's free words are X in the reference, already don't-cares in the strict exhaustive simulation:
    # the strict check, which runs first, proves it
    assert st.data["equiv_mode"] == ("strict" if name == "ROM" else "spec") and st.data["observe"]
    if name in ("accu", "alu", "width_8to16"):     # the strict check rejects the same candidate
        strict = _check(name, _edits(free), observe=False)
        assert strict.status != "proven" and strict.data["equiv_mode"] == "strict"
    st = _check(name, _edits(gated))
    assert st.status == "counterexample", st.status
    assert "spec-level equivalence" in st.diagnostics[0].message
    assert "compared only when" in st.diagnostics[0].message      # the gated output, and its rule
    assert any(r.startswith("compared only when") for r in st.data["counterexample"]["rules"].values())
    if qual:
        st = _check(name, _edits(qual))
        assert st.status == "counterexample", st.status
        assert "compared exactly: it qualifies" in st.diagnostics[0].message


def test_reset_value_stated_by_spec_stays_defined():
    # width_8to16's spec gives data_out's reset value: the rule keeps the reset cycles observed
    st = _check("width_8to16", _edits([("data_out <= 'd0;", "data_out <= 16'hFFFF;")]))
    assert st.status == "counterexample", st.status


COUNTER = """module cnt(input clk, input rst, input en, output reg [3:0] q, output busy);
  wire [3:0] helper_q;
  helper h(.a(q), .y(helper_q));
  always @(posedge clk) if (rst) q <= 4'd0; else if (en) q <= helper_q;
  assign busy = q != 0;
endmodule
module helper(input [3:0] a, output [3:0] y);
  assign y = a + 1'b1;
endmodule
"""


def test_reset_rules_and_multi_module_sources():
    # during reset the candidate shows 15 on q; only `reset: free` accepts it, and the helper module
    # of both sides keeps its name (only the top is renamed)
    cand = {"cnt.v": COUNTER.replace("assign busy = q != 0;", "assign busy = rst | (q != 0);")
            .replace("module cnt(input clk, input rst, input en, output reg [3:0] q, output busy);",
                     "module cnt(input clk, input rst, input en, output [3:0] q, output busy);\n"
                     "  reg [3:0] r; assign q = rst ? 4'd15 : r;")
            .replace("if (rst) q <= 4'd0; else if (en) q <= helper_q;", "if (rst) r <= 4'd0; else if (en) r <= helper_q;")
            .replace(".a(q)", ".a(r)")}
    ref = {"cnt.v": COUNTER}
    opts = dict(clock="clk", reset="rst", timeout_s=60)
    assert equivalence(cand, ref, "cnt", None, **opts).status == "counterexample"
    free = Observe(reset_free=True, cite="t")
    assert equivalence(cand, ref, "cnt", free, **opts).status == "proven"


DELAY = "module d1(input clk, input rst, input [3:0] d, output reg [3:0] q);\n" \
        "  always @(posedge clk) if (rst) q <= 4'd0; else q <= d;\nendmodule\n"


def test_reset_cycles_free_the_first_cycles_after_reset():
    # the candidate shows 9 in the first cycle after reset (a warm-up), then the same values
    cand = {"d1.v": "module d1(input clk, input rst, input [3:0] d, output [3:0] q);\n"
                    "  reg [3:0] r; reg started;\n  assign q = started ? r : 4'd9;\n"
                    "  always @(posedge clk) if (rst) begin r <= 4'd0; started <= 1'b0; end\n"
                    "  else begin r <= d; started <= 1'b1; end\nendmodule\n"}
    opts = dict(clock="clk", reset="rst", timeout_s=60)
    # a reference whose last line has no newline: the Icarus replay must still see two modules
    st = equivalence(cand, {"d1.v": DELAY.rstrip()}, "d1", Observe(reset_free=True, cite="t"), **opts)
    assert st.status == "counterexample" and "compared exactly" in st.diagnostics[0].message
    assert "replayed in icarus" in st.data["counterexample"]["found_by"]
    assert equivalence(cand, {"d1.v": DELAY}, "d1", Observe(reset_cycles=1, cite="t"), **opts).status == "proven"


def test_wrapper_renames_only_the_top():
    from eda.ports import Port
    ports = [Port("clk", "input", 1), Port("rst", "input", 1), Port("en", "input", 1),
             Port("q", "output", 4), Port("busy", "output", 1)]
    g, c = wrap({"cnt.v": COUNTER}, {"cnt.v": COUNTER}, "cnt", ports, Observe({"q": "!busy"}, cite="t"))
    assert re.search(r"module cnt__observed\(", g["cnt.v"]) and "module helper(" in g["cnt.v"]
    assert "assign q = ((!o__busy)) ? o__q : 4'd0;" in g["cnt__observe.v"]
    with pytest.raises(ObserveError, match="itself gated"):
        wrap({"cnt.v": COUNTER}, {"cnt.v": COUNTER}, "cnt", ports, Observe({"q": "busy", "busy": "en"}, cite="t"))
    with pytest.raises(ObserveError, match="not a port"):
        wrap({"cnt.v": COUNTER}, {"cnt.v": COUNTER}, "cnt", ports, Observe({"q": "valid"}, cite="t"))


def test_rule_parsing_errors_are_clear():
    assert parse("strict", "x") is None and parse(None, "x") is None
    with pytest.raises(ObserveError, match="cite"):
        parse({"when": {"a": "b"}}, "f.yaml: accu")
    with pytest.raises(ObserveError, match="unknown key"):
        parse({"when": {"a": "b"}, "cite": "c", "whenn": 1}, "f.yaml: accu")
    with pytest.raises(ObserveError, match="reset_cycles"):
        parse({"reset_cycles": -1, "cite": "c"}, "x")


def test_every_rtllm_design_has_a_rule_citing_its_spec():
    rules = yaml.safe_load(OBSERVE.read_text())
    tasks = load_suite("rtllm")
    assert {t.name for t in tasks} == set(rules)
    flat = (lambda s: re.sub(r"\s+", " ", s))
    for t in tasks:
        if t.observe:
            for part in t.observe.cite.split("..."):     # each quoted piece is in the spec, word for word
                piece = flat(part).strip(" .")
                assert piece in flat(t.spec), (t.name, piece)


def test_task_yaml_observe_is_checked(tmp_path):
    src = load_task("counter8").root
    for f in src.iterdir():
        (tmp_path / f.name).write_bytes(f.read_bytes())
    yml = tmp_path / "task.yaml"
    base = yml.read_text()
    yml.write_text(base + "observe: {when: {q: nothere}, cite: x}\n")
    with pytest.raises(TaskError, match="nothere"):
        load_project_task(tmp_path)
    yml.write_text(base + "observe: {when: {q: en}, cite: x}\n")
    assert load_project_task(tmp_path).observe.when == {"q": "en"}


def test_optimize_scores_with_the_task_rule(tmp_path):
    """optimize's reward comes from the same spec-level verdict as regress (and its resume key holds the rule)."""
    from rtl_agent.jobs.optimize import OptimizeConfig, OptimizeEnv
    env = OptimizeEnv(OptimizeConfig(task="ROM", out=str(tmp_path), adapter="none"), tmp_path)
    assert env.settings()["observe"]["when"] == {"dout": "addr < 4"}
    code = "\n".join(env.ref_src.values())
    rep = env._eval(_sub(code, "dout = mem[addr];", "dout = addr < 4 ? mem[addr] : 16'hFFFF;"))
    eq = rep.stage("equiv")
    assert eq.status == "proven" and eq.data["observe"] == ["dout compared only when addr < 4"]
