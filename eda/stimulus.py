"""The stimulus format: what a coverage-closure policy writes (Verilog only, no checking).

A stimulus drives the inputs of the design under test (DUT) and never judges it. Two
forms are accepted; `prepare` turns either into a testbench module.

1. Full module (primary form, as in public stimulus-generation benchmarks):

       module tb;
         reg clk = 0, rst_n = 0; reg [7:0] a; wire [7:0] y;
         counter uut(.clk(clk), .rst_n(rst_n), .a(a), .y(y));   // DUT top, instance name `uut`
         always #5 clk = ~clk;
         initial begin
           #12 rst_n = 1;
           repeat (20) begin @(negedge clk); a = $urandom; end
           $finish;
         end
       endmodule

   Exactly one module of the stimulus instantiates the DUT top as `uut`; that module is the
   testbench (it may use helper modules it defines itself). It must not define a module whose
   name the DUT already uses.

2. Body: text without any `module`, placed inside a generated module

       module rtla_tb;
         reg [W-1:0] <input> = 0;  ...  wire [W-1:0] <output>;  ...
         <top> uut(.<port>(<port>), ...);
         initial <clock> = 0; always #(PERIOD/2) <clock> = ~<clock>;   // only when a clock is found
         <body>
       endmodule

   The body drives inputs (not the clock) by name, e.g.
   `initial begin rst_n = 0; #12 rst_n = 1; repeat (50) @(negedge clk) a = $urandom; $finish; end`.

Either form may read the DUT's internals (`uut.state`) but never write them (`uut.state = 3`, `force`,
`release`, `$deposit`): coverage reached that way is of states the design's inputs may never reach.
Both forms run under the sandbox rules for candidate RTL (`eda.screen.screen`, but printing
"passed"/"failed" is allowed) plus Verilator-specific rules (no `$c` inline C++, no
`systemc_*` sections). Time units are ns (`--timescale 1ns/1ps` for files without one).
A stimulus should end with `$finish`; one that does not is stopped at a simulated-time limit
(`harness`) and, if it loops without advancing time, by the wall-clock limit.
"""
import re
from dataclasses import dataclass

from .hdl import module_names, strip_comments
from .screen import screen

HARNESS = "rtla_cov_harness"      # generated top: instantiates the testbench, adds the time limit
BODY_TB = "rtla_tb"               # module name given to a body-form stimulus
TIME_LIMIT_MSG = "RTLA: simulation time limit reached"

# Verilator compiles Verilog to C++: these put arbitrary C++ into the build (an escape from screening).
_UUT_RE_T = r"(?<![\w$.]){top}\s*(#\s*\(.*?\)\s*)?uut\s*\("
# writes into the DUT's hierarchy put it in states its inputs may never reach (coverage no design can have);
# reading `uut.x` is fine. `=` after a name is always an assignment (comparisons are `==`); `<=` only where a
# statement starts (in `if (uut.n <= 3)` it compares)
_HIER_WRITE = re.compile(r"\buut\s*\.\s*[\w$.\[\]: ]*?[\w$\]]\s*=(?!=)"
                         r"|(?:^|[;)]|\bbegin\b|\belse\b|#\s*[\d.]+)\s*uut\s*\.\s*[\w$.\[\]: ]*?[\w$\]]\s*<=", re.M)
_FORCE = re.compile(r"(?<![\w$])(?:force|release|\$deposit)\b")


class StimulusError(ValueError):
    """The stimulus cannot be turned into a testbench; the message says why (a verdict, not a crash)."""


@dataclass
class Prepared:
    form: str          # "module" | "body"
    tb: str            # testbench module name
    text: str          # Verilog to compile (the stimulus itself for form 1, wrapped for form 2)
    line_offset: int   # lines added before the stimulus text (body form), to map diagnostics back


def screen_stimulus(text: str, name: str = "stimulus.sv", dut_modules=()) -> list[str]:
    """Reasons to refuse a stimulus before any tool runs (empty: accepted)."""
    reasons = screen(text, name, allow_verdict_strings=True)
    is_body = not module_names(text)
    reasons = [r for r in reasons if not (is_body and r.endswith("no module declaration found"))]
    clash = sorted(set(module_names(text)) & set(dut_modules))
    if clash:
        reasons.append(f"{name}: defines module(s) {', '.join(clash)} that the DUT defines (a stimulus may not replace the DUT)")
    code = strip_comments(text)
    if _HIER_WRITE.search(code) or _FORCE.search(code):
        reasons.append(f"{name}: writes inside the DUT (`uut.<signal> =`, force, release or $deposit): a stimulus "
                       "drives the DUT's inputs only, so the states it reaches are states the design can reach")
    for bad in (HARNESS, BODY_TB):
        if bad in module_names(text):
            reasons.append(f"{name}: module name {bad} is reserved")
    return reasons


def find_tb(text: str, top: str) -> str:
    """Name of the module in `text` that instantiates `top` as `uut`; StimulusError if none or several."""
    code = strip_comments(text)
    uut = re.compile(_UUT_RE_T.format(top=re.escape(top)), re.S)
    found = []
    starts = [(m.start(), m.group(1).lstrip("\\"))
              for m in re.finditer(r"^\s*(?:module|macromodule)\s+(\\?[\w$]+)", code, re.M)]
    for i, (pos, mod) in enumerate(starts):
        end = starts[i + 1][0] if i + 1 < len(starts) else len(code)
        if uut.search(code, pos, end):
            found.append(mod)
    if not found:
        raise StimulusError(f"no module of the stimulus instantiates the DUT '{top}' as 'uut' "
                            f"(expected e.g. `{top} uut(.clk(clk), ...);`)")
    if len(found) > 1:
        raise StimulusError(f"several modules instantiate '{top}' as 'uut': {', '.join(found)}; write one testbench")
    return found[0]


def wrap_body(body: str, top: str, ports, clock: str | None = None, period_ns: float = 10.0) -> Prepared:
    """Body form -> a testbench module declaring the DUT's ports as regs/wires and driving the clock."""
    lines = [f"module {BODY_TB};"]
    for p in ports:
        rng = f"[{p.width - 1}:0] " if p.width > 1 else ""
        sgn = "signed " if getattr(p, "signed", False) else ""
        if p.direction == "input":
            lines.append(f"  reg {sgn}{rng}{p.name} = 0;")
        else:
            lines.append(f"  wire {sgn}{rng}{p.name};")
    conns = ", ".join(f".{p.name}({p.name})" for p in ports)
    lines.append(f"  {top} uut({conns});")
    if clock:
        lines.append(f"  always #({period_ns / 2}) {clock} = ~{clock};")
    head = "\n".join(lines) + "\n"
    return Prepared("body", BODY_TB, head + body.rstrip() + "\nendmodule\n", head.count("\n"))


def prepare(stimulus: str, top: str, ports=None, clock: str | None = None, period_ns: float = 10.0) -> Prepared:
    """Either form -> Prepared. `ports`/`clock` are needed only for the body form."""
    if module_names(stimulus):
        return Prepared("module", find_tb(stimulus, top), stimulus, 0)
    if ports is None:
        raise StimulusError("a body-form stimulus needs the DUT's ports to be wrapped")
    return wrap_body(stimulus, top, ports, clock, period_ns)


def harness(tb: str, max_time_ns: int, extra: str = "") -> str:
    """The generated top: the testbench plus a simulated-time limit (a stimulus without $finish ends here);
    `extra`: more harness code (eda.fsm's monitor)."""
    return (f"module {HARNESS};\n  {tb} tb();\n" + extra +
            # $stop/$fatal end the run like $finish (an error, not an abort) so coverage is still written
            "  initial $c(\"Verilated::threadContextp()->fatalOnError(false);\");\n"
            f"  initial begin #({int(max_time_ns)}); $display(\"{TIME_LIMIT_MSG} ({int(max_time_ns)} ns)\"); $finish; end\n"
            f"endmodule\n")
