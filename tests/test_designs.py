"""Task format and loaders: project designs pass their own testbenches under Icarus and
fail broken variants; RTLLM loads with ports parsed by Yosys; missing data is a clear error."""
import re
import time
from pathlib import Path

import pytest

from designs import rtllm
from designs import Task, TaskError, load_suite, load_task, project_folders
from eda import config, hdl, ports, sandbox, tools
from eda.config import MissingData

PASS = "===========Your Design Passed==========="

PROJECT = ["adder16", "mult8", "lzc16", "prio_enc8", "counter8", "fsm_seq", "fifo8x4", "alu8", "crc8",
           "gray_counter", "c910_lza",
           # headroom tasks (bench/headroom/<name>/ holds rewrites that beat the reference)
           "ripple_sum4", "popcount16", "shared_alu", "dec_shift32", "wide_count", "idle_pipe", "fsm_onehot",
           "mac_dup",
           "max8", "mux_alu", "oddclk7", "updown12", "sym_detect",
           "stopwatch", "period_div", "signmag16", "pipe_sum4", "stack4", "edge3"]

# (task, file of the reference, text in it, replacement): each must make the task's testbench fail
BROKEN = [
    ("adder16", "reference.v", "= a + b + cin;", "= a + b;"),
    ("mult8", "reference.v", "((pp0 + pp1)", "((pp0 | pp1)"),
    ("lzc16", "reference.v", "count = 5'd16;", "count = 5'd0;"),
    ("lzc16", "reference.v", "count = 15 - i", "count = 16 - i"),
    ("prio_enc8", "reference.v", "8'b001?????: idx = 3'd5;", "8'b001?????: idx = 3'd4;"),
    ("counter8", "reference.v", "assign tc = en & (q == 8'hFF);", "assign tc = (q == 8'hFF);"),
    ("counter8", "reference.v", "else if (load) q <= d;", "else if (load & ~en) q <= d;"),
    ("fsm_seq", "reference.v", "S4: next = din ? S1 : S2;", "S4: next = din ? S1 : S0;"),
    ("fifo8x4", "reference.v", "wire do_wr = wr_en && !full;", "wire do_wr = wr_en;"),
    ("fifo8x4", "reference.v", "assign full  = (count == 3'd4);", "assign full  = (count == 3'd3);"),
    ("alu8", "reference.v", "$signed(a) < $signed(b)", "a < b"),
    ("alu8", "reference.v", "carry = (a < b);", "carry = (a <= b);"),
    ("crc8", "reference.v", "^ 8'h07)", "^ 8'h05)"),
    ("gray_counter", "reference.v", "bin ^ (bin >> 1)", "bin ^ (bin >> 2)"),
    ("max8", "reference.v", "if (data[8*i +: 8] > mx)", "if (data[8*i +: 8] >= mx)"),
    ("updown12", "reference.v", "if (q == 12'd0)   q <= 12'hFFF;", "if (q == 12'd0)   q <= 12'h000;"),
    ("sym_detect", "reference.v", "GOT20:   next = (key == 2'd3)", "GOT20:   next = (key == 2'd1)"),
    ("stopwatch", "reference.v", "if (secs == 6'd59) secs <= 6'd0;", "if (secs == 6'd58) secs <= 6'd0;"),
    ("period_div", "reference.v", "else if (count == period - 1) begin", "else if (count == period) begin"),
    ("signmag16", "reference.v", "(y[14:0] == 15'd0) ? 1'b0 : a[15];", "a[15];"),
    ("stack4", "reference.v", "end else if (push && !full) begin", "end else if (push) begin"),
    ("stack4", "reference.v", "mem[n[1:0]] = 8'd0;", "mem[n[1:0]] = 8'd0; n = n + 3'd1;"),
    ("edge3", "reference.v", "low <= ~a & ~p;", "low <= ~a;"),
    ("pipe_sum4", "reference.v", "v1 <= in_valid; v2 <= v1;", "v1 <= in_valid; v2 <= in_valid;"),
    ("pipe_sum4", "reference.v", "cd_q <= c_q + d_q;", "cd_q <= c_q ^ d_q;"),
    ("mux_alu", "reference.v", "y = $signed(a) >>> b[3:0];", "y = a >> b[3:0];"),
    ("mux_alu", "reference.v", "y = c - b;", "y = b - c;"),
    ("oddclk7", "reference.v", "always @(negedge clk", "always @(posedge clk"),
    ("c910_lza", "ct_vfmau_lza_42.v", "!lza_precod[3] && (lza_precod[2] || !lza_precod[1])",
     "(lza_precod[2] || !lza_precod[1])"),
    # (dropping sub_vld from the carry_p[1] branch of lza_precod[0] is an equivalent mutant: never decisive)
    ("c910_lza", "ct_vfmau_lza.v", "!carry_p[1] && (carry_d[0] && sub_vld || carry_g[0])",
     "!carry_p[1] && (carry_d[0] || carry_g[0])"),
    ("c910_lza", "ct_vfmau_lza.v", "carry_g[106:1] & ~carry_d[105:0]", "carry_g[106:1] & ~carry_g[105:0]"),
]

# written from designs/c910_lza/spec.md alone: proves the spec defines the reference's behaviour
LZA_FROM_SPEC = """
module ct_vfmau_lza(input [107:0] addend, input [107:0] summand, input sub_vld, output reg [6:0] lza_result);
    wire [107:0] P = summand ^ addend, G = summand & addend, Z = ~(summand | addend);
    reg [107:0] f;
    integer i;
    always @* begin
        f[107] = sub_vld ? (G[107] & ~Z[106] | Z[107] & ~G[106]) : (Z[107] & ~Z[106] | ~Z[107]);
        for (i = 1; i <= 106; i = i + 1)
            f[i] = P[i+1] ? (G[i] & ~Z[i-1] | Z[i] & ~G[i-1]) : (G[i] & ~G[i-1] | Z[i] & ~Z[i-1]);
        f[0] = P[1] ? (G[0] & sub_vld | Z[0]) : (Z[0] & sub_vld | G[0]);
        lza_result = 7'd108;
        for (i = 0; i <= 107; i = i + 1) if (f[i]) lza_result = 107 - i;
    end
endmodule
"""


def simulate(task: Task, rtl: dict) -> str:
    """Icarus 11: compile candidate + the task's testbench files, run, return the output."""
    with sandbox.Sandbox(prefix="rtla-test-") as sb:
        files = {**rtl, **task.testbench_sources()}
        for name, text in files.items():
            sb.write(name, text)
        hdl_files = [n for n in files if n.endswith((".v", ".sv"))]
        r = sandbox.run(tools.ICARUS.compile_cmd(hdl_files, "sim", task.tb_top), sb.path, sandbox.Limits(wall_s=60))
        assert r.ok, r.out
        r = sandbox.run(tools.ICARUS.run_cmd("sim"), sb.path, sandbox.Limits(wall_s=30))
        assert not r.timed_out, f"{task.name}: simulation hung"
        return r.out


def passed(out: str) -> bool:
    # RTLLM testbenches print the marker with spaces inside
    return re.search(r"=+\s*Your Design Passed\s*=+", out) is not None and "failures" not in out


@pytest.fixture(scope="module")
def project():
    return {t.name: t for t in load_suite("designs")}


def test_project_tasks_load(project):
    assert sorted(project) == sorted(PROJECT)
    assert len(project_folders()) == len(PROJECT)
    for t in project.values():
        assert t.source == "project" and t.spec.strip() and t.tb_top.startswith("tb_")
        assert t.ports and all(p.direction in ("input", "output", "inout") and p.width >= 1 for p in t.ports)
        assert t.top in "\n".join(t.reference_sources().values())
        if t.sequential:
            assert t.clock == "clk" and t.reset in ("rst", "rst_n") and t.reset_active_low == (t.reset == "rst_n")
        d = t.to_dict()
        assert d["name"] == t.name and d["ports"][0]["name"] == t.ports[0].name
    assert project["c910_lza"].pdk == "sky130hd" and project["adder16"].pdk == "nangate45"
    assert {p.name: p.width for p in project["c910_lza"].ports} == {
        "addend": 108, "summand": 108, "sub_vld": 1, "lza_result": 7}


def test_c910_reference_stays_in_shared(project):
    t = project["c910_lza"]
    assert all(config.shared_root() in p.parents for p in t.reference)
    tb = t.testbench_sources()
    assert set(tb) == {"tb.v", "gold_ct_vfmau_lza.v", "gold_ct_vfmau_lza_42.v", "gold_ct_vfmau_lza_32.v"}
    gold = "\n".join(tb.values())
    assert "module gold_ct_vfmau_lza_42" in gold and "ct_vfmau_lza_42  x_" not in gold.replace("gold_ct", "")
    assert not list(Path(t.root).glob("ct_vfmau*"))


@pytest.mark.parametrize("name", PROJECT)
def test_reference_passes_own_testbench(project, name):
    t = project[name]
    t0 = time.monotonic()
    out = simulate(t, t.reference_sources())
    assert passed(out), out[-1500:]
    # the reference prints the pass marker and nothing else: no MISMATCH line, no warning, no error after it
    assert out.strip() == PASS, out[-1500:]
    assert time.monotonic() - t0 < 10


@pytest.mark.parametrize("name,fname,old,new", BROKEN, ids=[f"{b[0]}-{i}" for i, b in enumerate(BROKEN)])
def test_broken_variant_fails(project, name, fname, old, new):
    t = project[name]
    src = t.reference_sources()
    assert src[fname].count(old) == 1, f"mutation anchor not found once in {name}/{fname}"
    src[fname] = src[fname].replace(old, new)
    out = simulate(t, src)
    assert not passed(out)
    assert "Test completed with" in out and "MISMATCH" in out, out[-1500:]


def test_c910_spec_model_passes(project):
    out = simulate(project["c910_lza"], {"cand.v": LZA_FROM_SPEC})
    assert passed(out), out[-1500:]


def test_every_project_testbench_is_in_the_task(project):
    for t in project.values():
        assert all(Path(p).is_file() for p in t.testbenches)
        assert "$finish" in t.testbench_sources()[t.testbenches[0].name]


# ---- RTLLM -------------------------------------------------------------------

def test_rtllm_loads_with_ports():
    ports._CACHE.clear()
    suite = load_suite("rtllm")       # no wall-time bound here: it failed at load 4.7 (17.9 s); speed is bench's
    assert len(suite) == 50
    by = {t.name: t for t in suite}
    for t in suite:
        assert t.source == "rtllm" and t.ports and t.tb_top and t.category.count("/") == 1
        assert any(p.direction == "output" for p in t.ports)
        assert t.testbench_sources() and t.reference_sources()
    a = by["adder_pipe_64bit"]
    assert (a.top, a.ref_top, a.tb_top) == ("adder_pipe_64bit", "verified_adder_64bit", "tb_adder64")
    assert any("verified_adder_64bit" in n for n in a.notes)
    assert "module adder_pipe_64bit" in "".join(a.reference_sources().values())
    assert {p.name: (p.direction, p.width) for p in a.ports}["result"] == ("output", 65)
    assert (a.clock, a.reset, a.reset_active_low) == ("clk", "rst_n", True)
    # only-the-prefix differences are not noted; name-vs-DUT differences are
    assert not by["adder_8bit"].notes
    assert by["fixed_point_substractor"].top == "fixed_point_subtractor"
    assert any("fails its own testbench" in n for n in by["radix2_div"].notes)
    for weak in ("ring_counter", "edge_detect", "square_wave", "sub_64bit"):
        assert any("accepts wrong designs" in n for n in by[weak].notes)
    assert any("interface only" in n for n in by["float_multi"].notes)
    # reset polarity comes from the RTL when the name does not say: LIFObuffer's `if (Rst == 1)`
    assert (by["LIFObuffer"].reset, by["LIFObuffer"].reset_active_low) == ("Rst", False)
    assert (by["instr_reg"].reset, by["instr_reg"].reset_active_low) == ("rst", True)
    assert by["adder_8bit"].clock is None and "comb" in by["adder_8bit"].tags
    assert [p.name for p in by["alu"].data_files] == ["reference.dat"]
    assert "reference.dat" in by["alu"].testbench_sources()


def test_rtllm_renamed_reference_passes():
    t = load_task("adder_pipe_64bit")
    assert passed(simulate(t, t.reference_sources()))


def test_load_task_forms(project):
    root = rtllm.root()
    folder = next(root.glob("Arithmetic/Adder/adder_8bit"))
    assert load_task(folder).name == "adder_8bit"
    assert load_task(project["crc8"].root).name == "crc8"
    assert load_task(project["crc8"].root / "task.yaml").name == "crc8"
    assert [t.name for t in load_suite(project["crc8"].root)] == ["crc8"]
    with pytest.raises(TaskError, match="unknown task"):
        load_task("no_such_design")


# ---- missing data ---------------------------------------------------------------

def test_missing_shared_data(monkeypatch, tmp_path):
    monkeypatch.setenv("RTL_AGENT_SHARED", str(tmp_path))
    with pytest.raises(MissingData, match="rtllm-v2.0"):
        load_suite("rtllm")
    with pytest.raises(MissingData, match="c910-lza"):
        load_task("c910_lza")
    with pytest.raises(MissingData):
        load_suite("designs")
    kept = [t.name for t in load_suite("designs", skip_missing=True)]
    assert "c910_lza" not in kept and "adder16" in kept           # only the task whose data is missing is left out
    for bad in (tmp_path / "nope", "/no/such/folder"):
        with pytest.raises(MissingData, match="does not exist|not 'rtllm'"):
            load_suite(str(bad)) if str(bad).startswith("/no") else rtllm.load_suite(bad)
    with pytest.raises(MissingData, match="no RTLLM designs"):
        rtllm.load_suite(tmp_path)


# ---- task.yaml validation ----------------------------------------------------------

def _task_dir(tmp_path, yaml_text, ref="module m(input [3:0] a, output y); assign y = ^a; endmodule\n"):
    d = tmp_path / "t"
    d.mkdir()
    (d / "spec.md").write_text("spec")
    (d / "reference.v").write_text(ref)
    (d / "tb.v").write_text("module tb; reg [3:0] a; wire y; m dut(.a(a), .y(y)); initial $finish; endmodule\n")
    (d / "task.yaml").write_text(yaml_text)
    return d


GOOD = """name: t
top: m
spec: spec.md
ports:
  - {name: a, dir: input, width: 4}
  - {name: y, dir: output, width: 1}
reference: reference.v
testbench: tb.v
"""


def test_yaml_good_and_defaults(tmp_path):
    t = load_task(_task_dir(tmp_path, GOOD))
    assert (t.top, t.ref_top, t.tb_top, t.pdk, t.period_ns, t.clock) == ("m", "m", "tb", "nangate45", 10.0, None)


@pytest.mark.parametrize("edit,msg", [
    (lambda s: s.replace("top: m\n", ""), "missing required field 'top'"),
    (lambda s: s.replace("width: 4", "width: 5"), "'ports'.*'a': declared input width 5, reference has input width 4"),
    (lambda s: s.replace("{name: y, dir: output", "{name: z, dir: output"), "'ports'.*'z' is declared but not"),
    (lambda s: s.replace("dir: input", "dir: in"), r"ports\[0\].*dir must be"),
    (lambda s: s + "pdk: tsmc5\n", "'pdk': unknown pdk"),
    (lambda s: s + "clock: y\n", "'clock': 'y' is not a 1-bit input"),
    (lambda s: s + "colour: red\n", "unknown field"),
    (lambda s: s.replace("reference.v", "missing.v"), "'reference': file .*missing.v does not exist"),
    (lambda s: s.replace("top: m", "top: other"), "'top': the testbench does not instantiate 'other'"),
    (lambda s: "[1, 2", "not valid YAML"),
])
def test_yaml_errors_name_file_and_field(tmp_path, edit, msg):
    d = _task_dir(tmp_path, edit(GOOD))
    with pytest.raises(TaskError, match=msg) as e:
        load_task(d)
    assert str(d / "task.yaml") in str(e.value)


def test_yaml_reference_that_does_not_parse(tmp_path):
    d = _task_dir(tmp_path, GOOD, ref="module m(input [3:0] a, output y); assign y = ; endmodule\n")
    with pytest.raises(TaskError, match="'reference'.*syntax error"):
        load_task(d)


# ---- ports ----------------------------------------------------------------------

def test_parse_ports_and_heuristics():
    src = {"x.v": "module top #(parameter W = 12) (input CLK, input rst_n, input signed [W-1:0] d,\n"
                  "  inout [1:0] io, output reg [W:0] q);\n always @(posedge CLK) if (!rst_n) q <= 0; else q <= d;\nendmodule\n"}
    ps = ports.parse_ports(src, "top")
    assert [(p.name, p.direction, p.width) for p in ps] == [
        ("CLK", "input", 1), ("rst_n", "input", 1), ("d", "input", 12), ("io", "inout", 2), ("q", "output", 13)]
    assert ps[2].signed and not ps[4].signed
    assert hdl.detect_clock_reset(ps) == ("CLK", "rst_n", True)
    # polarity from the RTL when the name does not tell
    p2 = [ports.Port("clock", "input", 1), ports.Port("reset", "input", 1)]
    assert hdl.detect_clock_reset(p2, "always @(posedge clock or negedge reset)") == ("clock", "reset", True)
    assert hdl.detect_clock_reset(p2, "always @(posedge clock) if (reset) q <= 0;") == ("clock", "reset", False)
    assert hdl.detect_clock_reset([ports.Port("a", "input", 1)]) == (None, None, False)
    with pytest.raises(ports.PortError, match="not found"):
        ports.parse_ports(src, "nosuch")


def test_one_clock_rule_for_rtl_ports_and_netlists():
    """STA (netlist inputs) and the RTL heuristics pick the same clock: conventional names first, in
    port order, else the first name with clk/clock in it; vector bits are never a clock."""
    from eda import sta
    assert hdl.detect_clock(["a", "hclk"]) == "hclk"
    assert hdl.detect_clock(["clk_en", "clk"]) == "clk"
    assert hdl.detect_clock(["rst", "wclk", "rclk"]) == "wclk"
    assert hdl.detect_clock(["sysclock"]) == "sysclock" and hdl.detect_clock(["a", "b"]) is None
    netlist = ("module t(\\clk_sel[0] , hclk, \\a[0] , y);\n  input \\a[0] ;\n  input \\clk_sel[0] ;\n"
               "  input hclk;\n  output y;\nendmodule\n")
    assert sta.netlist_inputs(netlist) == ["clk_sel[0]", "hclk", "a[0]"]
    assert sta.netlist_clock(netlist) == "hclk"
    ps = [ports.Port("clk_sel", "input", 2), ports.Port("hclk", "input", 1), ports.Port("a", "input", 1)]
    assert hdl.detect_clock_reset(ps)[0] == "hclk"


def test_parse_ports_cache_skips_yosys(monkeypatch):
    src = {"y.v": "module c(input [7:0] a, output [7:0] b); assign b = ~a; endmodule\n"}
    ports._CACHE.clear()
    first = ports.parse_ports(src, "c")                 # real Yosys
    assert [(p.name, p.direction, p.width) for p in first] == [("a", "input", 8), ("b", "output", 8)]
    assert len(ports._CACHE) == 1

    def no_yosys(*a, **k):
        raise AssertionError("parse_ports ran Yosys again for sources it has already parsed")
    monkeypatch.setattr(ports, "_yosys_ports", no_yosys)
    again = ports.parse_ports(dict(src), "c")          # same content in a new dict: served from the cache
    assert again == first and again is not first
    again.clear()                                       # the caller's list is a copy: the cache is untouched
    assert ports.parse_ports(src, "c") == first
    with pytest.raises(AssertionError, match="ran Yosys"):   # other text is not a cache hit
        ports.parse_ports({"y.v": src["y.v"].replace("~a", "a")}, "c")


def test_instantiations_parser():
    text = """module tb; // dut below
      reg [3:0] x; wire y;
      initial begin $display("mod inst ("); #5 x = f(1); end
      foo #(.W(4), .D((2))) u_foo (.a(x), .y(y));
      bar u_bar [1:0] (x, y);
      assign y = x[0];
    endmodule
    module foo #(parameter W = 1, D = 1) (input [W-1:0] a, output y); endmodule"""
    got = hdl.instantiations(text)
    assert [(m, i) for _, m, i in got] == [("foo", "u_foo"), ("bar", "u_bar")]
    assert got[0][0] == "tb"


def test_project_references_synthesize(project):
    """Every project reference maps to Yosys generic cells with no combinational loop or multiple driver."""
    for t in project.values():
        with sandbox.Sandbox(prefix="rtla-test-") as sb:
            names = [sb.write(n, x).name for n, x in t.reference_sources().items()]
            script = "; ".join(f"read_verilog -sv {n}" for n in names) + f"; synth -top {t.top} -flatten; check -assert"
            r = sandbox.run(tools.YOSYS.commands_cmd(script), sb.path, sandbox.Limits(wall_s=120))
            assert r.ok, f"{t.name}: {r.out[-800:]}"
