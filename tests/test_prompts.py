"""Prompt builders and Verilog extraction over a corpus of messy completions.

Every extraction the corpus marks usable is also compiled with the real Icarus, so "usable" means
"iverilog accepts it", not just "the regexes liked it"."""
import pytest

from eda.sandbox import Limits, Sandbox, run
from eda.tools import ICARUS
from rtl_agent.prompts import (extract_verilog, optimize_prompt, port_names, report_summary, rtl_prompt,
                               stimulus_prompt)

AND2 = "module and2(input a, input b, output y);\n  assign y = a & b;\nendmodule"
F = "```"
# (completion, top, ports, expected kept modules, reason substrings ([] = must be clean))
CORPUS = [
    (AND2, "and2", ["a", "b", "y"], ["and2"], []),
    (f"{F}verilog\n{AND2}\n{F}", "and2", ["a", "b", "y"], ["and2"], []),
    (f"Sure! Here is the module:\n\n{F}verilog\n{AND2}\n{F}\n\nThis uses an assign.", "and2", None, ["and2"], []),
    (f"{F}systemverilog\n{AND2}\n{F}", "and2", None, ["and2"], []),
    (f"{F}v\n{AND2}\n{F}", "and2", None, ["and2"], []),
    (f"{F}\n{AND2}\n{F}", "and2", None, ["and2"], []),
    (f"Explanation first.\n{F}text\nnot code\n{F}\n{F}verilog\n{AND2}\n{F}", "and2", None, ["and2"], []),
    (f"The module and2 is simple.\n{AND2}\nThe module and2 above computes AND.", "and2", None, ["and2"], []),
    # truncated: fence never closed and no endmodule
    (f"{F}verilog\nmodule and2(input a, input b, output y);\n  assign y = a &", "and2", None, ["and2"],
     ["truncated"]),
    ("module and2(input a, input b, output y);\n  assign y = a & b;\n", "and2", None, ["and2"], ["truncated"]),
    # wrong top name
    (AND2.replace("and2", "my_and"), "and2", None, ["my_and"], ["no module named 'and2'"]),
    # wrong ports
    (AND2, "and2", ["a", "b", "c", "y"], ["and2"], ["lacks port(s): c"]),
    (AND2, "and2", ["a", "y"], ["and2"], ["unexpected port(s): b"]),
    # top + submodule, and a testbench that must be dropped
    ("module inv(input a, output y); assign y = ~a; endmodule\n"
     "module nand2(input a, input b, output y); wire t; and2 u0(.a(a), .b(b), .y(t)); inv u1(.a(t), .y(y));"
     " endmodule\n" + AND2 + "\nmodule tb; reg a,b; wire y; nand2 dut(a,b,y); initial $finish; endmodule",
     "nand2", ["a", "b", "y"], ["inv", "nand2", "and2"], []),
    # submodule in a second fence
    (f"Top:\n{F}verilog\nmodule top(input a, b, output y);\n  and2 g(.a(a), .b(b), .y(y));\nendmodule\n{F}\n"
     f"Helper:\n{F}verilog\n{AND2}\n{F}", "top", ["a", "b", "y"], ["top", "and2"], []),
    # parameterized instance
    ("module add #(parameter W=4)(input [W-1:0] a, b, output [W:0] s); assign s = a + b; endmodule\n"
     "module top(input [7:0] x, y, output [8:0] z); add #(.W(8)) u (.a(x), .b(y), .s(z)); endmodule",
     "top", ["x", "y", "z"], ["add", "top"], []),
    # non-ANSI ports
    ("module and2(a, b, y);\n input a, b;\n output y;\n assign y = a & b;\nendmodule", "and2",
     ["a", "b", "y"], ["and2"], []),
    # comments that contain the keywords
    ("// module fake(input q);\n/* endmodule */\n" + AND2, "and2", None, ["and2"], []),
    ("module and2(input a, input b, output y); // endmodule here is a comment\n assign y = a & b;\nendmodule",
     "and2", None, ["and2"], []),
    # strings containing keywords
    ("module and2(input a, input b, output y);\n initial $display(\"module x(); endmodule\");\n"
     " assign y = a & b;\nendmodule", "and2", None, ["and2"], []),
    # endmodule with a label
    ("module and2(input a, input b, output y); assign y = a & b; endmodule : and2", "and2", None, ["and2"], []),
    # timescale and define kept
    ("`timescale 1ns/1ps\n`define W 8\nmodule r(input [`W-1:0] a, output [`W-1:0] y); assign y = a; endmodule",
     "r", ["a", "y"], ["r"], []),
    # no module at all
    ("I cannot help with that.", "and2", None, [], ["no Verilog module found"]),
    ("", "and2", None, [], ["empty completion"]),
    ("   \n\n", "and2", None, [], ["empty completion"]),
    (f"{F}python\nprint('module')\n{F}", "and2", None, [], ["no Verilog module found"]),
    # duplicated module
    (AND2 + "\n" + AND2, "and2", None, ["and2"], ["more than once"]),
    # chat-template leftovers around the code
    (f"<|im_start|>assistant\n{F}verilog\n{AND2}\n{F}<|im_end|>", "and2", None, ["and2"], []),
    # sequential design with always blocks and a case statement
    ("Here you go:\nmodule cnt(input clk, input rst, output reg [3:0] q);\n always @(posedge clk)\n"
     "  if (rst) q <= 0; else case (q) 4'd9: q <= 0; default: q <= q + 1; endcase\nendmodule\nDone.",
     "cnt", ["clk", "rst", "q"], ["cnt"], []),
    # wrong name AND truncated
    ("module foo(input a, output y);\n assign y =", "bar", None, ["foo"], ["no module named 'bar'", "truncated"]),
    # prose that mentions "module top that ..." before the code must not be taken as a module
    ("The module top that you asked for:\nmodule top(input a, output y); assign y = a; endmodule", "top",
     ["a", "y"], ["top"], []),
    # windows line endings
    (AND2.replace("\n", "\r\n"), "and2", ["a", "b", "y"], ["and2"], []),
    # unrelated extra module kept out
    (AND2 + "\nmodule unused(input q, output r); assign r = q; endmodule", "and2", None, ["and2"], []),
    # port given as dict (names checked)
    (AND2, "and2", {"a": "input", "b": "input", "y": "output"}, ["and2"], []),
    # port with default value and reg type
    ("module d(input wire clk, input wire [7:0] din, output reg [7:0] dout = 8'd0);\n"
     " always @(posedge clk) dout <= din;\nendmodule", "d", ["clk", "din", "dout"], ["d"], []),
]


# every problem extract_verilog reports (rtl_agent/prompts/rtl.py), by a substring of its message
REASON_KINDS = ["empty completion", "no Verilog module found", "defined more than once", "no module named",
                "is truncated", "lacks port(s)", "unexpected port(s)"]


def test_corpus_reaches_every_reason():
    # each problem is produced by some corpus entry and no entry yields a message outside the list, so
    # a new or reworded reason in extract_verilog fails here until the corpus tests it
    seen = [r for text, top, ports, _, _ in CORPUS for r in extract_verilog(text, top, ports).reasons]
    assert [k for k in REASON_KINDS if not any(k in r for r in seen)] == []
    assert [r for r in seen if not any(k in r for k in REASON_KINDS)] == []
    clean = [c for c in CORPUS if not c[4]]
    assert any(c[2] is None for c in clean) and any(isinstance(c[2], dict) for c in clean)


@pytest.mark.parametrize("i", range(len(CORPUS)))
def test_extract(i):
    text, top, ports, kept, reasons = CORPUS[i]
    e = extract_verilog(text, top, ports)
    assert e.module_names == kept, (e.module_names, e.reasons)
    if reasons:
        for r in reasons:
            assert any(r in x for x in e.reasons), (r, e.reasons)
    else:
        assert e.reasons == [] and e.ok, e.reasons
        # the kept code compiles with the real Icarus
        with Sandbox() as sb:
            sb.write("dut.v", e.code)
            r = run(ICARUS.compile_cmd(["dut.v"], "sim", top), sb.path, Limits(wall_s=20))
            assert r.ok, r.out
        assert "```" not in e.code and "Sure" not in e.code


def test_bad_input_types_do_not_crash():
    assert extract_verilog(None, "x").reasons == ["empty completion"]
    assert not extract_verilog(b"module x; endmodule", "x").ok


def test_port_names():
    assert port_names("module m #(parameter N = 2)(input [N-1:0] a, b, output reg y); endmodule") == ["a", "b", "y"]
    assert port_names("module m; endmodule") == []


REPORT = {"status": "fail", "top": "adder", "area_um2": 202.4, "delay_ns": 1.029, "power_w": 2.03e-05,
          "ppa": 4.2e-3, "stages": {
              "lint": {"name": "lint", "status": "pass", "diagnostics": [], "data": {}, "log": ""},
              "sta": {"name": "sta", "status": "pass", "diagnostics": [],
                      "data": {"critical_path": ["A[0]", "U12/Z", "S[31]"]}, "log": ""},
              "sim": {"name": "sim", "status": "fail", "log": "",
                      "diagnostics": [{"message": "Test failed at case 3", "file": "tb.v", "line": 40}],
                      "data": {}}}}


def test_prompts_carry_report_facts_and_stay_short():
    msgs = optimize_prompt("A 32-bit adder.", "module adder(); endmodule", REPORT, "adder")
    user = msgs[-1]["content"]
    for s in ("202.4", "1.029", "A[0] -> U12/Z -> S[31]", "Test failed at case 3", "line 40", "Fix the design"):
        assert s in user, s
    assert "Stage lint" not in user                         # passing stages are not listed
    ok = dict(REPORT, status="pass", stages={})
    assert "same behaviour" in optimize_prompt("s", "c", ok, "adder")[-1]["content"]
    long = rtl_prompt("x" * 50_000, "adder")
    assert len(long[-1]["content"]) < 3200                   # the spec is clipped
    assert rtl_prompt("spec", "adder", ["a", "b"])[-1]["content"].count("Ports: a, b") == 1
    st = stimulus_prompt("spec", "module m(); endmodule", "m", ["line 12", "toggle q[1]"])
    assert "toggle q[1]" in st[-1]["content"] and st[0]["role"] == "system"
    assert report_summary({}) == "No EDA report."


def test_rtl_prefill_header_compiles_with_assign_or_always():
    from eda.ports import Port
    from rtl_agent.prompts import module_header, rtl_prefill
    ports = [Port("a", "input", 8, False), Port("s", "input", 8, True), Port("clk", "input", 1, False),
             Port("y", "output", 8, False), Port("q", "output", 1, False)]
    head = module_header("m", ports)
    assert head.startswith("module m (\n") and "input signed [7:0] s" in head and "output reg [7:0] y" in head
    assert rtl_prefill("m", ports) == "```verilog\n" + head
    assert rtl_prefill("m", {"a": "input"}) == "```verilog\nmodule m"        # widths unknown: the name only
    body = "  assign y = a + s;\n  always @(posedge clk) q <= a[0];\nendmodule\n"
    with Sandbox() as sb:
        sb.write("m.v", head + body)
        r = run(ICARUS.compile_cmd(["m.v"], "m.vvp", "m"), sb.path, Limits(wall_s=30))
    assert r.ok, r.out
