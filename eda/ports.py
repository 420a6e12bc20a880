"""Ports of a top module, read from RTL by Yosys (no hand tables), plus small
parsers for what a testbench instantiates and clock/reset heuristics.

`parse_ports` caches per content hash in memory, so loading the 50 RTLLM tasks
runs Yosys once per distinct reference.
"""
import hashlib
import json
import re
from dataclasses import asdict, dataclass

from . import sandbox, tools

DIRECTIONS = ("input", "output", "inout")


@dataclass(frozen=True)
class Port:
    name: str
    direction: str      # input | output | inout
    width: int
    signed: bool = False

    def to_dict(self) -> dict:
        return asdict(self)


class PortError(ValueError):
    """Yosys could not read the sources or find the top; the message holds its error."""


_CACHE: dict[str, tuple[list[Port], str | None]] = {}


def _key(sources: dict, top: str) -> str:
    h = hashlib.sha256(top.encode())
    for name in sorted(sources):
        h.update(b"\0" + name.encode() + b"\0" + sources[name].encode())
    return h.hexdigest()


def parse_ports(sources: dict[str, str], top: str, timeout_s: float = 60) -> list[Port]:
    """Ports of module `top` (declaration order, default parameters) in `sources` (filename -> text)."""
    return parse_ports_ex(sources, top, timeout_s)[0]


def parse_ports_ex(sources: dict[str, str], top: str, timeout_s: float = 60) -> tuple[list[Port], str | None]:
    """(ports, note): note is None when Yosys elaborated the design, else why only the
    interface could be read (e.g. RTL Yosys cannot synthesize; ports come from `read_verilog -lib`)."""
    if not sources:
        raise PortError(f"no sources given to find the ports of '{top}'")
    key = _key(sources, top)
    if key in _CACHE:
        ports, note = _CACHE[key]
        return list(ports), note
    try:
        ports, note = _yosys_ports(sources, top, lib=False, timeout_s=timeout_s), None
    except PortError as full_err:
        # interface-only read: works for RTL that elaborates badly (non-synthesizable event lists)
        try:
            ports = _yosys_ports(sources, top, lib=True, timeout_s=timeout_s)
        except PortError:
            raise full_err from None
        note = f"yosys cannot elaborate it ({str(full_err).split(': ', 1)[-1]}); ports read from the interface only"
    _CACHE[key] = (ports, note)
    return list(ports), note


def _yosys_ports(sources: dict, top: str, lib: bool, timeout_s: float) -> list[Port]:
    with sandbox.Sandbox(prefix="rtla-ports-") as sb:
        names = []
        for i, (name, text) in enumerate(sources.items()):
            # numbered names: two sources may share a basename (different folders)
            names.append(sb.write(f"{i:03d}_{_safe(name)}", text).name)
        flag = "-sv -lib" if lib else "-sv"
        reads = "; ".join(f"read_verilog {flag} {n}" for n in names)
        script = f"{reads}; hierarchy -top {top}; {'' if lib else 'proc; '}write_json ports.json"
        r = sandbox.run([tools.which("yosys"), "-q", "-p", script], sb.path,
                        sandbox.Limits(wall_s=timeout_s, cpu_s=int(timeout_s) + 5, mem_mb=4096))
        out = sb.path / "ports.json"
        if not r.ok or not out.exists():
            err = _first_error(r.out) or f"yosys exit {r.rc}"
            err = re.sub(r"\b\d{3}_", "", err)        # drop our numbering from file names
            raise PortError(f"cannot read ports of '{top}' from {', '.join(sources)}: {err}")
        data = json.loads(out.read_text())
    mod = data.get("modules", {}).get(top)
    if mod is None:
        raise PortError(f"yosys output has no module '{top}' (found {', '.join(data.get('modules', {}))})")
    return [Port(n, p["direction"], len(p["bits"]), bool(p.get("signed", 0)))
            for n, p in mod.get("ports", {}).items()]


def _safe(name: str) -> str:
    base = name.replace("\\", "/").rsplit("/", 1)[-1]
    return re.sub(r"[^A-Za-z0-9_.-]", "_", base) or "src.v"


def _first_error(out: str) -> str:
    for line in out.splitlines():
        if "ERROR" in line or "error" in line.lower():
            return line.strip()[:300]
    return out.strip().splitlines()[-1][:300] if out.strip() else ""


# ---- clock / reset heuristics ------------------------------------------------

_CLOCK_RE = re.compile(r"^(i_|in_|sys_)?(clk|clock|clk_i|clk_in|clkin|aclk|hclk|pclk)(_i|_in)?$", re.I)
_RESET_RE = re.compile(r"^(i_|in_|sys_|a)?(n?rst|n?reset|rst_?n|reset_?n|rst_?b|reset_?b|rstn|resetn|clr|clear)(_i|_in|_n|_ni)?$", re.I)
_LOW_RE = re.compile(r"(^n|_n$|_ni$|_b$|(rst|reset)n$|(rst|reset)b$)", re.I)


def detect_clock_reset(ports: list[Port], text: str | None = None) -> tuple[str | None, str | None, bool]:
    """(clock, reset, reset_active_low) guessed from 1-bit input names (clk/clock/CLK...,
    rst/rst_n/reset/RST...); `text` (the RTL) decides the polarity when it shows it:
    `negedge rst`, `if (!rst)`, `if (rst == 0)` mean active low; `posedge rst`, `if (rst)` high."""
    ins = [p for p in ports if p.direction == "input" and p.width == 1]
    clock = next((p.name for p in ins if _CLOCK_RE.match(p.name)), None)
    if clock is None:
        clock = next((p.name for p in ins if "clk" in p.name.lower()), None)
    reset = next((p.name for p in ins if p.name != clock and _RESET_RE.match(p.name)), None)
    if reset is None:
        reset = next((p.name for p in ins if p.name != clock and ("rst" in p.name.lower() or "reset" in p.name.lower())), None)
    low = bool(reset and _LOW_RE.search(reset))
    if reset and text:
        # the earliest polarity evidence wins: the reset branch normally comes first
        code = sandbox.strip_comments(text)
        r = re.escape(reset)
        low_re = rf"negedge\s+{r}\b|if\s*\(\s*[!~]\s*{r}\b|if\s*\(\s*{r}\s*==\s*(1'b0|0)\s*\)"
        high_re = rf"posedge\s+{r}\b|if\s*\(\s*{r}\s*\)|if\s*\(\s*{r}\s*==\s*(1'b1|1)\s*\)"
        lo, hi = re.search(low_re, code), re.search(high_re, code)
        if lo or hi:
            low = bool(lo) and (not hi or lo.start() < hi.start())
    return clock, reset, low


# ---- what a source instantiates ------------------------------------------------

_KEYWORDS = set("""always and assign automatic begin buf bufif0 bufif1 case casex casez cmos deassign default defparam
disable edge else end endcase endfunction endgenerate endmodule endprimitive endspecify endtable endtask event for
force forever fork function generate genvar highz0 highz1 if ifnone initial inout input integer join large localparam
macromodule medium module nand negedge nmos nor not notif0 notif1 or output parameter pmos posedge primitive pull0
pull1 pulldown pullup rcmos real realtime reg release repeat rnmos rpmos rtran rtranif0 rtranif1 scalared signed small
specify specparam strong0 strong1 supply0 supply1 table task time tran tranif0 tranif1 tri tri0 tri1 triand trior
trireg unsigned vectored wait wand weak0 weak1 while wire wor xnor xor logic bit byte int shortint longint return
always_ff always_comb always_latch typedef enum struct packed import export static""".split())
_IDENT = r"[A-Za-z_][A-Za-z0-9_$]*"
_INST_HEAD = re.compile(rf"(?<![\w$.`'])({_IDENT})\s*(#\s*\()?")


def _skip_parens(code: str, i: int) -> int:
    """Index just after the ')' matching the '(' at code[i-1]."""
    depth = 1
    while i < len(code) and depth:
        depth += {"(": 1, ")": -1}.get(code[i], 0)
        i += 1
    return i


def instantiations(text: str) -> list[tuple[str, str, str]]:
    """(enclosing module, instantiated module, instance name) for each module instance in `text`."""
    code = re.sub(r'"(?:[^"\\\n]|\\.)*"', '""', sandbox.strip_comments(text))
    out, current = [], None
    mod_re = re.compile(rf"\b(?:module|macromodule)\s+({_IDENT})")
    pos = 0
    while True:
        m = _INST_HEAD.search(code, pos)
        if not m:
            return out
        word = m.group(1)
        pos = m.end()
        if word in ("module", "macromodule"):
            mm = mod_re.match(code, m.start())
            current = mm.group(1) if mm else current
            pos = mm.end() if mm else pos
            continue
        if word in _KEYWORDS or code[m.start() - 1:m.start()] == "$":
            continue
        j = m.end()
        if m.group(2):                          # parameter override #( ... )
            j = _skip_parens(code, j)
        inst = re.compile(rf"\s*({_IDENT})\s*(\[[^\]]*\])?\s*\(").match(code, j)
        # a statement-level identifier pair `mod inst (`, not an expression like `a = f(`
        if inst and inst.group(1) not in _KEYWORDS and _statement_start(code, m.start()):
            out.append((current, word, inst.group(1)))
            pos = _skip_parens(code, inst.end())
        # otherwise keep scanning after this word


def _statement_start(code: str, i: int) -> bool:
    """True when code[i] begins a statement: preceded by ; ) begin end or a module header."""
    k = i - 1
    while k >= 0 and code[k].isspace():
        k -= 1
    if k < 0:
        return True
    if code[k] in ";)":
        return True
    m = re.search(rf"({_IDENT})$", code[max(0, k - 40):k + 1])
    return bool(m and m.group(1) in ("begin", "end", "endcase", "else", "generate", "endgenerate", "endfunction", "endtask"))
