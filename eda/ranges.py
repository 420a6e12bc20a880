"""Value ranges of a design's internal registers under its own testbench: which values each one took.

A register declared wider than any value it reaches is headroom a synthesis tool keeps (it cannot prove the
upper bits dead when they sit in a counter or a shift chain), and an engineer reads it off a simulation:
"cnt is 32 bits, the testbench takes it through 0..24". Here each internal `reg`/`logic` vector of the top
module gets a probe (its largest value, the OR of its values, up to 64 distinct values), the design runs its
testbench through the sim stage (sandboxed, sealed verdict) and a `final` block prints the probes.

This is simulation, not proof: a range is what the testbench reached. A narrower design built on it still
has to be proven equivalent by the flow.

    probe(code, top)            (probed code, {name: width}) for the top module's internal vectors
    value_ranges(job, sources)  {name: Range} from one simulation of `sources` under the job's testbench
"""
from __future__ import annotations

import re
from dataclasses import asdict, dataclass

from .hdl import blank_comments_and_strings

MARK = "RTLA_RANGE"
CAP = 64                    # distinct values kept per register
# `reg [7:0] a, b;` / `logic [W-1:0] q = 0;` with a plain numeric range; arrays (`d [0:7]`) are left out
_DECL = re.compile(r"^[ \t]*(?:reg|logic)\b(?:[ \t]+(?:signed|unsigned))?[ \t]*\[[ \t]*(\d+)[ \t]*:[ \t]*(\d+)[ \t]*\]"
                   r"([^;()\[\]]*);", re.M)
_NAME = re.compile(r"^\s*([A-Za-z_]\w*)\s*(?:=.*)?$")
_PORT = re.compile(r"\b(?:input|output|inout)\b")
_PORT_DECL = re.compile(r"\b(?:input|output|inout)\b[^;)]*")
_IDENT = re.compile(r"[A-Za-z_]\w*")


@dataclass
class Range:
    width: int
    lo: int                 # the smallest value (unsigned)
    hi: int                 # the largest
    ones: int               # OR of every value: bits that were ever 1
    values: int             # distinct values seen, CAP + 1 meaning more than CAP
    changes: int

    @property
    def bits(self) -> int:
        """Bits the values need: the highest bit ever 1, plus one."""
        return max(1, self.ones.bit_length())

    def slack(self) -> int:
        return self.width - self.bits if self.changes else 0

    def text(self, name: str) -> str:
        many = f"more than {CAP} values" if self.values > CAP else \
            f"{self.values} value{'s' if self.values != 1 else ''}"
        return (f"`{name}` is declared {self.width} bits; in the testbench it took {many}, {self.lo}..{self.hi} "
                f"(they fit in {self.bits} bit{'s' if self.bits > 1 else ''}: [{self.bits - 1}:0])")

    def to_dict(self) -> dict:
        return asdict(self)


def _module_span(code: str, top: str) -> tuple[int, int, str] | None:
    """(start, end, the module's text with comments and strings blanked)."""
    flat = blank_comments_and_strings(code)
    m = re.search(rf"\bmodule\s+{re.escape(top)}\b", flat)
    if not m:
        return None
    end = re.compile(r"\bendmodule\b").search(flat, m.end())
    return (m.start(), end.start(), flat[m.start():end.start()]) if end else None


def declared(code: str, top: str, span=None) -> dict:
    """{name: width} of the top module's internal reg/logic vectors with a numeric range."""
    span = span or _module_span(code, top)
    if not span:
        return {}
    flat, out = span[2], {}
    # a port keeps its width: the header's names (non-ANSI lists) and every name in a port declaration
    header = flat[:flat.find(";") + 1]
    ports = set(_IDENT.findall(header)) | {n for m in _PORT_DECL.finditer(flat) for n in _IDENT.findall(m.group(0))}
    for m in _DECL.finditer(flat):
        line = flat[flat.rfind("\n", 0, m.start()) + 1:m.end()]
        if _PORT.search(line):
            continue
        width = abs(int(m.group(1)) - int(m.group(2))) + 1
        if width < 2 or width > 64:
            continue
        for part in m.group(3).split(","):
            n = _NAME.match(part)
            if n and n.group(1) not in ports:
                out[n.group(1)] = width
    return out


def probe(code: str, top: str) -> tuple[str, dict]:
    """The design with a probe per internal vector of `top`, inserted before its endmodule."""
    span = _module_span(code, top)
    names = declared(code, top, span) if span else {}
    if not names:
        return code, {}
    lines = [f"// {MARK} probes (eda/ranges.py)"]
    for k, (n, w) in enumerate(sorted(names.items())):
        p = f"rtla_r{k}_"
        lines += [
            f"reg [{w - 1}:0] {p}lo = {{{w}{{1'b1}}}}, {p}hi = 0, {p}or = 0; reg [{w - 1}:0] {p}v [0:{CAP - 1}];",
            f"integer {p}k = 0, {p}c = 0, {p}i; reg {p}f;",
            f"always @({n}) if (^{n} !== 1'bx) begin",
            f"  {p}c = {p}c + 1; if ({n} > {p}hi) {p}hi = {n}; if ({n} < {p}lo) {p}lo = {n}; {p}or = {p}or | {n}; {p}f = 0;",
            f"  for ({p}i = 0; {p}i < {p}k && {p}i < {CAP}; {p}i = {p}i + 1) if ({p}v[{p}i] == {n}) {p}f = 1;",
            f"  if (!{p}f) begin if ({p}k < {CAP}) {p}v[{p}k] = {n}; {p}k = {p}k + 1; end",
            "end",
            f'final $display("{MARK} {n} {w} %0h %0h %0h %0d %0d", {p}lo, {p}hi, {p}or, {p}k, {p}c);',
        ]
    return code[:span[1]] + "\n".join(lines) + "\n" + code[span[1]:], names


def parse(output: str) -> dict:
    out = {}
    for m in re.finditer(rf"^{MARK} (\w+) (\d+) (\w+) (\w+) (\w+) (\d+) (\d+)\s*$", output, re.M):
        n, w, lo, hi, ones, k, c = m.groups()
        if int(c):
            out[n] = Range(int(w), int(lo, 16), int(hi, 16), int(ones, 16), min(int(k), CAP + 1), int(c))
    return out


def value_ranges(job, sources: dict) -> dict:
    """{name: Range} for the internal vectors of job.top in `sources` ({file: text}), from one run of the
    job's testbench; {} when nothing could be probed or the probed run did not pass (never an exception:
    a hint, not a verdict)."""
    from .simulate import simulate
    probed, names = {}, {}
    for f, text in sources.items():
        code, got = probe(text, job.top)
        probed[f], names = code, {**names, **got}
    if not names or not job.tb:
        return {}
    try:
        st = simulate(probed, job.tb, tb_top=job.tb_top, simulators=job.simulators, verdict_rule=job.verdict,
                      dut_top=job.top, sim_flags=job.sim_flags)
    except Exception:           # noqa: BLE001 -- a probe the simulator refuses loses the hint, nothing else
        return {}
    return parse(st.log or "") if st.status == "pass" else {}
