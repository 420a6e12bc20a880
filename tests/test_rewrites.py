"""One-line rewrites (rtl_agent.rewrites) that the edit-line SFT pairs teach: what each rule does, and
that the rewritten designs pass the optimize job's own EDA flow (equivalence proven) on real tools."""
import random

import pytest

from rtl_agent.rewrites import commute, literal, rewrite_line, ternary, zero_test


def test_rules():
    assert commute("a + b*c") == "b*c + a" and commute("a | b | c") == "c | a | b"
    assert commute("a - b + c") is None and commute("a == b == c") is None and commute("s ? a : b") is None
    # operators the rules leave alone are still parsed whole, never split into a broken statement
    assert all(commute(e) is None for e in ("a ** b", "a === b", "a !== b", "a <<< 2", "a >>> 2", "a ~^ b"))
    assert commute("a ** 2 + b") == "b + a ** 2" and commute("x & ~^y") == "~^y & x"
    assert zero_test("(d == 16'd0)") == "(~|d)" and zero_test("x[3:0] != 0") == "|x[3:0]"
    assert zero_test("d == 1") is None
    assert ternary("s ? a : b") == "!(s) ? b : a" and ternary("!en ? a : b") == "en ? b : a"
    assert ternary("(x == 1) ? a : b") == "!(x == 1) ? b : a"
    assert literal("{1'b0, q}") == "{1'd0, q}" and literal("8'hFF & m") == "8'd255 & m" and literal("x") is None
    r = random.Random(0)
    assert rewrite_line("  assign y = ~(a ^ b);  // x", r) == "  assign y = ~(b ^ a);"
    assert rewrite_line("  else q <= q;", r) is None and rewrite_line("  assign t = a <= b;", r) is None


@pytest.mark.requires("iverilog", "yosys", "sta")
def test_rewrites_of_a_task_are_proven_equivalent(tmp_path):
    from rtl_agent.edits import targets
    from rtl_agent.optimize import OptimizeConfig, OptimizeEnv, _join
    env = OptimizeEnv(OptimizeConfig(task="crc8"), tmp_path)
    code = _join(env.ref_src)
    lines, done = code.splitlines(), 0
    for i in targets(code):
        new = rewrite_line(lines[i], random.Random(i))
        if new:
            rep = env._eval("\n".join(lines[:i] + [new] + lines[i + 1:]) + "\n")
            assert rep["status"] == "pass" and rep["stages"]["equiv"]["status"] == "proven", (new, rep["status"])
            done += 1
    assert done >= 2
