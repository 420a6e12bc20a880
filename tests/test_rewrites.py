"""One-line rewrites (rtl_agent.rewrites) that the edit-line SFT pairs teach: what each rule does, and
that the rewritten designs pass the optimize job's own EDA flow (equivalence proven) on real tools."""
import random

import pytest

from rtl_agent.rewrites import (all_rewrites, bool_ternary, commute, demorgan, literal, rewrite_line, statement_head,
                                ternary, unwrap, zero_test)


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
    assert bool_ternary("(A == B) ? 1'b1 : 1'b0") == "|(A == B)" and bool_ternary("a > b ? 1'b0 : 1'b1") == "~|(a > b)"
    assert bool_ternary("s ? a : b") is None and bool_ternary("s ? 2'b1 : 2'b0") is None
    assert demorgan("~(a & b)") == "~a | ~b" and demorgan("~(a[3] | b ^ c | d)") == "~a[3] & ~(b ^ c) & ~d"
    assert demorgan("!(x && (y || z))") == "!x || !(y || z)" and demorgan("~(a ^ b)") is None
    assert demorgan("~(a & b) | c") is None
    assert unwrap("(q >> 1)") == "q >> 1" and unwrap("(a) & (b)") is None and unwrap("(a)") is None
    assert literal("{1'b0, q}") == "{1'd0, q}" and literal("8'hFF & m") == "8'd255 & m" and literal("x") is None
    r = random.Random(0)
    assert rewrite_line("  assign y = ~(a ^ b);  // x", r) == "  assign y = ~(b ^ a);"
    assert rewrite_line("  else q <= q;", r) is None and rewrite_line("  assign t = a <= b;", r) is None
    # what a one-line edit keeps (OptimizeConfig.keep_lhs): up to the first `=`/`<=`, case label and `else` too
    assert statement_head("    S4: next = din ? S1 : S2;") == "    S4: next ="
    assert statement_head("  else q <= q;") == "  else q <=" and statement_head("  assign t = a <= b;") == "  assign t ="
    assert statement_head("  foo(a);") is None


@pytest.mark.requires("iverilog", "yosys", "sta")
def test_rewrites_of_a_task_are_proven_equivalent(tmp_path):
    from rtl_agent.edits import targets
    from rtl_agent.jobs.optimize import OptimizeConfig, OptimizeEnv, _join
    env = OptimizeEnv(OptimizeConfig(task="crc8"), tmp_path)
    code = _join(env.ref_src)
    lines, done = code.splitlines(), 0
    for i in targets(code):
        new = rewrite_line(lines[i], random.Random(i))
        if new:
            rep = env._eval("\n".join(lines[:i] + [new] + lines[i + 1:]) + "\n")
            assert rep.status == "pass" and rep.equiv_status == "proven", (new, rep.status)
            done += 1
    assert done >= 2


_RULES_DUT = """module rw (input [3:0] a, input [3:0] b, input c, output [7:0] y1, output y2, output [3:0] y3,
           output [7:0] y4, output [5:0] y5);
  assign y1 = ~(a & b);
  assign y2 = !(a && c);
  assign y3 = (a > b) ? 1'b0 : 1'b1;
  assign y4 = ~(a | b ^ {4{c}} | 4'b0110);
  assign y5 = (a + b);
endmodule
"""


@pytest.mark.requires("iverilog", "yosys")
def test_every_rule_keeps_a_design_equivalent():
    """Each rule on each statement of a design whose outputs are wider than its operands (where a width slip
    would show), proven equivalent by the flow's own equivalence check."""
    from eda.flow import FlowJob, evaluate
    lines, done = _RULES_DUT.splitlines(), 0
    for i, line in enumerate(lines):
        for name, new in all_rewrites(line).items():
            code = "\n".join(lines[:i] + [new] + lines[i + 1:]) + "\n"
            rep = evaluate(FlowJob(top="rw", ref={"rw.v": _RULES_DUT}, stages=("lint", "equiv")), {"rw.v": code})
            assert rep.status == "pass" and rep.stages["equiv"].status == "proven", (name, new)
            done += 1
    assert done >= 10
