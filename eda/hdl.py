"""Verilog text utilities: no tools run here, only text.

    strip_comments(text)          comments gone, line numbers and string literals kept
    blank_comments_and_strings(text)  comments and strings turned to spaces, every offset kept
    comment_string_spans(text)    (start, end, kind) of each comment and string: the one scanner
    decode_source(data, name)     UTF-8 text or the reason it is not
    module_names(text)            modules a source defines
    instantiations(text)          (enclosing module, instantiated module, instance) per instance
    find_top(texts)               the module no other instantiates (testbench or design top)
    safe_name(name)               a file name safe to write into a sandbox folder
    detect_clock(names)           the clock among 1-bit input names (RTL ports or netlist inputs)
    detect_clock_reset(ports, text)   clock, reset and reset polarity of a design
"""
import re

STRING_RE = re.compile(r'"(?:[^"\\\n]|\\.)*"')
_MODULE_RE = re.compile(r"^\s*(?:module|macromodule)\s+(\\?\S+?)[\s#(;]", re.M)
_LEXEME = re.compile(r'"|/[/*]')         # where a string or a comment may start


def _open_string_end(text: str, i: int) -> int:
    """End of the string opened at text[i] when it is read leniently: up to its closing quote, else up to and
    including the end of its line; a backslash escapes the next character, a newline too."""
    j, n = i + 1, len(text)
    while j < n and text[j] not in '"\n':
        j += 2 if text[j] == "\\" else 1
    return min(j + 1, n)


def comment_string_spans(text: str, lenient_strings: bool = False):
    """(start, end, kind) of each // or /* */ comment ("comment"; a // comment ends before its newline, an
    unclosed /* at the end of the text) and each string literal ("string"), in order; strip_comments and
    blank_comments_and_strings build on it. A string is STRING_RE (closed on its line); a quote that opens
    none is an ordinary character, unless `lenient_strings`: then it opens a string that runs to its
    closing quote or the end of its line (see _open_string_end), as for LLM text."""
    i, n = 0, len(text)
    while True:
        m = _LEXEME.search(text, i)
        if not m:
            return
        i = m.start()
        if text[i] == '"':
            if lenient_strings:
                j = _open_string_end(text, i)
            else:
                s = STRING_RE.match(text, i)
                if not s:
                    i += 1
                    continue
                j = s.end()
            yield i, j, "string"
        elif text[i + 1] == "/":
            j = text.find("\n", i)
            j = n if j < 0 else j
            yield i, j, "comment"
        else:
            j = text.find("*/", i + 2)
            j = n if j < 0 else j + 2
            yield i, j, "comment"
        i = j


def strip_comments(text: str) -> str:
    """Remove // and /* */ comments, keeping line numbers and string literals."""
    out, i = [], 0
    for s, e, kind in comment_string_spans(text):
        if kind == "comment":
            out += [text[i:s], "\n" * text.count("\n", s, e)]
            i = e
    out.append(text[i:])
    return "".join(out)


def blank_comments_and_strings(text: str) -> str:
    """Comments and strings (read leniently: an unclosed string runs to its line's end) turned to spaces,
    newlines kept: the same length and offsets as `text`, so a keyword search skips them."""
    out, i = [], 0
    for s, e, _ in comment_string_spans(text, lenient_strings=True):
        out += [text[i:s], re.sub(r"[^\n]", " ", text[s:e])]
        i = e
    out.append(text[i:])
    return "".join(out)


def decode_source(data: bytes, name: str = "source") -> tuple[str | None, str | None]:
    """(text, None) or (None, reason) for bytes that are not UTF-8."""
    try:
        return data.decode("utf-8"), None
    except UnicodeDecodeError as e:
        return None, f"{name}: not UTF-8 text (byte 0x{data[e.start]:02x} at offset {e.start})"


def module_names(text: str) -> list[str]:
    return [m.lstrip("\\") for m in _MODULE_RE.findall(strip_comments(text))]


def safe_name(name, default: str = "src.v") -> str:
    """The base name of `name` with anything but letters, digits, `_.-` replaced by `_`."""
    base = str(name).replace("\\", "/").rsplit("/", 1)[-1]
    return re.sub(r"[^A-Za-z0-9_.-]", "_", base) or default


# ---- what a source instantiates ------------------------------------------------

_KEYWORDS = set("""always and assign automatic begin buf bufif0 bufif1 case casex casez cmos deassign default defparam
disable edge else end endcase endfunction endgenerate endmodule endprimitive endspecify endtable endtask event for
force forever fork function generate genvar highz0 highz1 if ifnone initial inout input integer join large localparam
macromodule medium module nand negedge nmos nor not notif0 notif1 or output parameter pmos posedge primitive pull0
pull1 pulldown pullup rcmos real realtime reg release repeat rnmos rpmos rtran rtranif0 rtranif1 scalared signed small
specify specparam strong0 strong1 supply0 supply1 table task time tran tranif0 tranif1 tri tri0 tri1 triand trior
trireg unsigned vectored wait wand weak0 weak1 while wire wor xnor xor logic bit byte int shortint longint return
always_ff always_comb always_latch typedef enum struct packed import export static""".split())
IDENT = r"[A-Za-z_][A-Za-z0-9_$]*"
_INST_HEAD = re.compile(rf"(?<![\w$.`'])({IDENT})\s*(#\s*\()?")


def _skip_parens(code: str, i: int) -> int:
    """Index just after the ')' matching the '(' at code[i-1]."""
    depth = 1
    while i < len(code) and depth:
        depth += {"(": 1, ")": -1}.get(code[i], 0)
        i += 1
    return i


def instantiations(text: str) -> list[tuple[str, str, str]]:
    """(enclosing module, instantiated module, instance name) for each module instance in `text`."""
    code = re.sub(r'"(?:[^"\\\n]|\\.)*"', '""', strip_comments(text))
    out, current = [], None
    mod_re = re.compile(rf"\b(?:module|macromodule)\s+({IDENT})")
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
        inst = re.compile(rf"\s*({IDENT})\s*(\[[^\]]*\])?\s*\(").match(code, j)
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
    m = re.search(rf"({IDENT})$", code[max(0, k - 40):k + 1])
    return bool(m and m.group(1) in ("begin", "end", "endcase", "else", "generate", "endgenerate", "endfunction", "endtask"))


def find_top(texts: dict) -> tuple[str | None, list[tuple[str, str, str]]]:
    """(the first module of `texts` that no module there instantiates, or None; the instances of
    modules `texts` does not define).  On testbench files: the testbench top and the DUT instances.
    Entries that are not text (data files as bytes) are skipped."""
    defined, insts = [], []
    for t in texts.values():
        if isinstance(t, str):
            defined += module_names(t)
            insts += instantiations(t)
    used = {i[1] for i in insts}
    top = next((m for m in defined if m not in used), None)
    return top, [i for i in insts if i[1] not in defined]


# ---- clock / reset heuristics ------------------------------------------------
# One rule set for every stage (STA on netlist inputs, equivalence, coverage, task loading):
# a conventional clock name first (first such input in declaration order), else the first input
# whose name contains clk or clock (wclk, clk_a, CLK_div, sysclock, ...).

_CLOCK_RE = re.compile(r"^(i_|in_|sys_)?(clk|clock|clk_i|clk_in|clkin|aclk|hclk|pclk)(_i|_in)?$", re.I)
_CLOCK_ANY_RE = re.compile(r"clk|clock", re.I)
_RESET_RE = re.compile(r"^(i_|in_|sys_|a)?(n?rst|n?reset|rst_?n|reset_?n|rst_?b|reset_?b|rstn|resetn|clr|clear)(_i|_in|_n|_ni)?$", re.I)
_LOW_RE = re.compile(r"(^n|_n$|_ni$|_b$|(rst|reset)n$|(rst|reset)b$)", re.I)


def detect_clock(names) -> str | None:
    """The clock among 1-bit input `names` (declaration order): clk, clock, i_clk, CLK_in, hclk, ...
    first, else the first name containing clk or clock; None when no name looks like a clock."""
    names = list(names)
    return (next((n for n in names if _CLOCK_RE.match(n)), None)
            or next((n for n in names if _CLOCK_ANY_RE.search(n)), None))


def detect_clock_reset(ports, text: str | None = None) -> tuple[str | None, str | None, bool]:
    """(clock, reset, reset_active_low) guessed from the names of 1-bit inputs (`ports`: objects with
    name, direction, width, e.g. eda.ports.Port); `text` (the RTL) decides the reset polarity when it
    shows it: `negedge rst`, `if (!rst)`, `if (rst == 0)` mean active low; `posedge rst`, `if (rst)` high."""
    ins = [p for p in ports if p.direction == "input" and p.width == 1]
    clock = detect_clock(p.name for p in ins)
    reset = next((p.name for p in ins if p.name != clock and _RESET_RE.match(p.name)), None)
    if reset is None:
        reset = next((p.name for p in ins if p.name != clock and ("rst" in p.name.lower() or "reset" in p.name.lower())), None)
    low = bool(reset and _LOW_RE.search(reset))
    if reset and text:
        # the earliest polarity evidence wins: the reset branch normally comes first
        code = strip_comments(text)
        r = re.escape(reset)
        low_re = rf"negedge\s+{r}\b|if\s*\(\s*[!~]\s*{r}\b|if\s*\(\s*{r}\s*==\s*(1'b0|0)\s*\)"
        high_re = rf"posedge\s+{r}\b|if\s*\(\s*{r}\s*\)|if\s*\(\s*{r}\s*==\s*(1'b1|1)\s*\)"
        lo, hi = re.search(low_re, code), re.search(high_re, code)
        if lo or hi:
            low = bool(lo) and (not hi or lo.start() < hi.start())
    return clock, reset, low


def input_fields(text: str, inputs) -> dict:
    """{input: [(lo, width), ...]} for inputs the source reads by bit slices (`a[30:23]`, `a[31]`): the
    fields those cuts make, low first. Inputs read only whole are left out. inputs: [(name, width)]."""
    text = strip_comments(text)
    out = {}
    for n, w in inputs:
        cuts = {0, w}
        for hi, lo in re.findall(rf"(?<![\w$.]){re.escape(n)}\s*\[\s*(\d+)\s*:\s*(\d+)\s*\]", text):
            lo_, hi_ = sorted((int(hi), int(lo)))
            cuts |= {c for c in (lo_, hi_ + 1) if 0 < c < w}
        for b in re.findall(rf"(?<![\w$.]){re.escape(n)}\s*\[\s*(\d+)\s*\]", text):
            cuts |= {c for c in (int(b), int(b) + 1) if 0 < c < w}
        if len(cuts) > 2:
            cs = sorted(cuts)
            out[n] = [(lo, hi - lo) for lo, hi in zip(cs, cs[1:])]
    return out


def normalise(text: str) -> str:
    """A design's identity for duplicate detection: comments removed, whitespace collapsed."""
    return re.sub(r"\s+", " ", strip_comments(text)).strip()
