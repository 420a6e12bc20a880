"""Coverage stimulus prompts (`rtl-agent cover`): the DUT, the holes left, how to start (from reset or
from the state the random phase left), and one worked example before the request."""
from __future__ import annotations

from .rtl import _clip

STIM_SYSTEM = ("You write Verilog testbench stimulus. Answer with one ```verilog block containing "
               "only the statements of an initial block, no module header (or one ```python block defining "
               "a cocotb coroutine `async def stimulus(dut)`).")

# One worked example (a different, tiny design) before the real request: the 135M default model
# copies the answer's shape (bare statements driving ports by name) far more often than it follows
# the instruction alone. It costs ~170 prompt tokens. Its holes are in the form of
# rtl_agent.jobs.cover.targets.holes.
_EX_SPEC = "Accumulator: s adds x every clock; rst clears it."
_EX_TOP = "acc"
_EX_CODE = ("module acc(input clk, input rst, input [3:0] x, output reg [7:0] s);\n"
            "  always @(posedge clk) if (rst) s <= 0; else s <= s + x;\nendmodule")
_EX_TODO = ["line 2 branch else (the condition false): `always @(posedge clk) if (rst) s <= 0; else s <= s + x;`",
            "signal x not toggled: [3] 0->1"]
_EX_ANSWER = ("```verilog\n// from: reset\nrst = 1;\nrepeat (2) @(negedge clk);\nrst = 0;\nrepeat (20) begin\n"
              "  @(negedge clk);\n  x = $random;\nend\nx = 4'hf;\n@(negedge clk);\n$finish;\n```")


def stimulus_prompt(spec: str, code: str, top: str, uncovered=(), max_items=12, max_code=3000,
                    random_runs: int = 0, example: bool = False) -> list:
    """Coverage job: stimulus that reaches the listed holes (lines, branches with their conditions,
    toggles). random_runs > 0: constrained-random tests ran first and the holes are what they left;
    the answer may then continue from the state they left (`// from: random`) or from reset.
    example: the worked example (request and answer, same random_runs) goes between the system turn
    and the request."""
    todo = "\n".join(f"- {u}" for u in list(uncovered)[:max_items]) or "- (no coverage data yet)"
    if random_runs:
        head = f"{random_runs} constrained-random test(s) ran first. They never reached:"
        start = ("Begin with `// from: reset` to start from reset, or `// from: random` to continue from the "
                 "state the last random test left the design in.")
    else:
        head, start = "Not yet covered:", "Begin with `// from: reset`."
    user = (f"Design `{top}`:\n```verilog\n{_clip(code, max_code)}\n```\n"
            f"Specification: {_clip(spec, 800)}\n\n{head}\n{todo}\n\n"
            f"Write stimulus (drive the inputs of `{top}` through the instance `uut`, use # delays) "
            f"that reaches them. {start}")
    msgs = [{"role": "system", "content": STIM_SYSTEM}, {"role": "user", "content": user}]
    if not example:
        return msgs
    ex = stimulus_prompt(_EX_SPEC, _EX_CODE, _EX_TOP, _EX_TODO, random_runs=random_runs)
    return msgs[:1] + [ex[1], {"role": "assistant", "content": _EX_ANSWER}] + msgs[1:]
