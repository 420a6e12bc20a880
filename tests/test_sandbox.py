"""Hostile and broken inputs: each gets a clear verdict within its limits; nothing escapes the sandbox."""
import tempfile
import time
from pathlib import Path

import pytest

from eda.flow import FlowJob, evaluate
from eda.sandbox import Limits, Sandbox, run
from eda.screen import screen

TB = """`timescale 1ns/1ps
module tb;
  reg a = 0; wire y;
  dut uut(.a(a), .y(y));
  initial begin #10 a = 1; #10;
    if (y === ~a) $display("===========Your Design Passed==========="); else $display("===========Failed===========");
    $finish;
  end
endmodule
"""
FAST = {"sim": Limits(wall_s=4, cpu_s=8, mem_mb=1024), "lint": Limits(wall_s=8, cpu_s=8, mem_mb=1024),
        "synth": Limits(wall_s=20, cpu_s=20, mem_mb=2048)}


@pytest.fixture
def clean_tmp(tmp_path, monkeypatch):
    """Run from an empty cwd with a private temp root; afterwards both must be empty again."""
    cwd, tmp = tmp_path / "cwd", tmp_path / "tmp"
    cwd.mkdir(); tmp.mkdir()
    monkeypatch.chdir(cwd)
    monkeypatch.setattr(tempfile, "tempdir", str(tmp))
    yield cwd
    assert list(cwd.iterdir()) == []
    assert list(tmp.iterdir()) == []


def ev(src, tb=TB, **kw):
    t = time.monotonic()
    job = FlowJob(top="dut", tb={"tb.v": tb} if tb else None, use_cache=False, limits=FAST, **kw)
    rep = evaluate(job, {"dut.v": src})
    return rep, time.monotonic() - t


CASES = {
    "always_without_delay": ("module dut(input a, output reg y); always y = ~y; endmodule", "fail", "lint"),
    "infinite_loop": ("module dut(input a, output reg y); always @(a) while (1) y = ~y; endmodule", "timeout", "sim"),
    "system_call": ('module dut(input a, output y); initial $system("touch /tmp/pwned"); assign y = ~a; endmodule',
                    "rejected", "screen"),
    "readmemh_passwd": ('module dut(input a, output y); reg [7:0] m [0:3]; initial $readmemh("/etc/passwd", m);'
                        ' assign y = ~a; endmodule', "rejected", "screen"),
    "include_passwd": ('`include "/etc/passwd"\nmodule dut(input a, output y); assign y = ~a; endmodule',
                       "rejected", "screen"),
    "fake_pass_marker": ('module dut(input a, output y); initial $display("Your Design Passed"); assign y = ~a; endmodule',
                         "rejected", "screen"),
    "verilator_c_call": ('module dut(input a, output y); initial $c("system(\\"touch /tmp/pwned\\");"); assign y = ~a; endmodule',
                         "rejected", "screen"),
    "systemc_block": ('`systemc_imp_header\n#include <cstdlib>\n`verilog\nmodule dut(input a, output y); assign y = ~a; endmodule',
                      "rejected", "screen"),
    "empty_file": ("", "rejected", "screen"),
    "no_module": ("assign y = 1;\n", "rejected", "screen"),
    "non_utf8": (b"module dut(input a, output y); // \xff\xfe\n assign y = ~a; endmodule", "rejected", "screen"),
    "wrong_top": ("module other(input a, output y); assign y = ~a; endmodule", "rejected", "screen"),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_hostile_candidate(case, clean_tmp):
    src, status, stage = CASES[case]
    rep, dt = ev(src)
    assert rep.status == status, rep.to_json()
    assert rep.failed_stage == stage
    assert rep.stages[stage].diagnostics and str(rep.stages[stage].diagnostics[0])
    assert dt < 30
    assert not Path("/tmp/pwned").exists()


def test_testbench_without_finish_times_out(clean_tmp):
    tb = TB.replace("$finish;", "").replace("initial begin #10", "always #5 a = ~a;\n  initial begin #10")
    rep, dt = ev("module dut(input a, output y); assign y = ~a; endmodule", tb=tb)
    assert rep.status == "timeout" and rep.failed_stage == "sim"
    assert "no $finish" in rep.stages["sim"].diagnostics[0].message
    assert dt < 20


def test_huge_wire_is_bounded(clean_tmp):
    rep, dt = ev("module dut(input a, output y); wire [1073741823:0] w = {1073741824{a}}; assign y = ~w[5]; endmodule")
    assert rep.status in ("fail", "error", "timeout")
    assert dt < 60


def test_million_iteration_generate_is_bounded(clean_tmp):
    src = """module dut(input a, output y);
  wire [1000000:0] c; assign c[0] = a;
  genvar i; generate for (i = 0; i < 1000000; i = i + 1) begin : g assign c[i+1] = ~c[i]; end endgenerate
  assign y = ~c[1000000];
endmodule"""
    rep, dt = ev(src)
    assert rep.status in ("fail", "error", "timeout")
    assert dt < 60


def test_run_limits_memory_and_output():
    with Sandbox() as sb:
        r = run(["python3", "-c", "x = bytearray(3 * 1024**3)"], sb.path, Limits(wall_s=10, mem_mb=512))
        assert r.rc != 0
        r = run(["python3", "-c", "import sys\nwhile True: sys.stdout.write('x' * 65536)"], sb.path,
                Limits(wall_s=20, out_mb=2))
        assert r.limit == "output" and len(r.out) < 300_000
        r = run(["sleep", "30"], sb.path, Limits(wall_s=1))
        assert r.timed_out and r.seconds < 5
        r = run(["/no/such/tool"], sb.path)
        assert r.rc is None and "cannot start" in r.out


def test_screen_ignores_comments_and_allows_local_includes():
    ok = '// $system("x")\n/* $fopen */\n`include "defs.vh"\nmodule m(); endmodule'
    assert screen(ok) == []
    assert any("DPI" in r for r in screen('import "DPI-C" function int f();\nmodule m(); endmodule'))
    assert any("outside" in r for r in screen('`include "../x.v"\nmodule m(); endmodule'))
