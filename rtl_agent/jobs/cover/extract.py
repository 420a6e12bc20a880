"""Stimulus out of a completion: a cocotb coroutine, a full testbench module, or the body of an initial
block (salvaged, cut at its last statement, closed and wrapped), and the continuation of the random
phase's last run for a body that says `// from: random`."""
from __future__ import annotations

import re

from eda import coverage as cov

_FROM_RANDOM = re.compile(r"//\s*from\s*:?\s*(random|continue)", re.I)


def continue_random(random_text: str, stimulus: str) -> str:
    """A body stimulus run after the random testbench `random_text` (seeded_stimulus, finish=False):
    its initial blocks wait for the random run to end; the rest goes into the same module."""
    body = re.sub(r"\binitial\b", "initial wait (rtla_done)", stimulus)
    head, _, tail = random_text.rpartition("endmodule")
    return head + body.rstrip() + "\nendmodule" + tail


_FENCE = re.compile(r"```[^\n]*\n(.*?)(?:```|\Z)", re.S)
_PYFENCE = re.compile(r"```py(?:thon)?[^\n]*\n(.*?)(?:```|\Z)", re.S)


def extract_cocotb(completion: str) -> str:
    """A cocotb stimulus (a ```python block, or the text, defining `async def stimulus(dut)`), or ""."""
    m = _PYFENCE.search(completion or "")
    text = m.group(1) if m else (completion or "")
    return text.strip() + "\n" if cov.is_cocotb(text) else ""


_STARTERS = {"#", "@", "repeat", "for", "if", "else", "begin", "end", "fork", "join", "wait", "$finish",
             "$display", "$random", "while", "integer"}
_VCHARS = re.compile(r"^[\w\s\[\]:'\"$#@().,;=+\-*/&|^~<>!?{}%]*$")


def _salvage(text: str, inputs) -> str:
    """Keep the lines that look like procedural Verilog driving the DUT: only Verilog characters,
    starting with a statement keyword, a delay/event control, or an input port of the DUT.
    initial/always lines are dropped (the body is wrapped in one initial block; the clock is
    driven by the wrapper) and an `end` that closes nothing goes with them."""
    out, depth = [], 0
    for raw in text.splitlines():
        line = raw.split("//")[0].rstrip()
        if not line.strip() or not _VCHARS.match(line):
            continue
        first = re.match(r"\s*(\$?\w+|[#@])", line)
        word = first.group(1) if first else ""
        if word in ("initial", "always"):
            rest = re.sub(r"^\s*(initial|always)\b\s*(@\s*\([^)]*\)|#\s*[\d.]+)?", "", line)
            if rest.strip().startswith("begin"):
                depth += 1
                out.append(rest)
            continue
        if word not in _STARTERS and word not in inputs:
            continue
        opens = len(re.findall(r"\bbegin\b", line))
        closes = len(re.findall(r"\bend\b", line))
        if closes > depth + opens:
            continue
        depth += opens - closes
        out.append(line)
    return "\n".join(out)


def extract_stimulus(completion: str, inputs=None) -> tuple[str, str]:
    """(stimulus text, "") or ("", reason). Takes the first fenced block (else the whole text).
    A module stays as is (full-module form). Otherwise it is a body: with `inputs` (the DUT's input
    port names) lines that cannot be stimulus are dropped (`_salvage`); then it is cut after the
    last complete statement (the sample may be truncated), open begin/fork blocks are closed, and
    bare statements are wrapped in `initial begin ... $finish; end`."""
    if not isinstance(completion, str) or not completion.strip():
        return "", "empty completion"
    m = _FENCE.search(completion)
    text = (m.group(1) if m else completion).strip()
    if re.search(r"^\s*module\b", text, re.M):
        return text + "\n", ""
    if inputs is not None:
        text = _salvage(text, set(inputs))
    last = max(text.rfind(";"), *(mm.end() - 1 for mm in re.finditer(r"\bend\b", text)), -1)
    if last < 0:
        return "", "no Verilog statement (nothing ends with ';')"
    text = text[:last + 1]
    opened = len(re.findall(r"\bbegin\b", text)) - len(re.findall(r"\bend\b", text))
    forks = len(re.findall(r"\bfork\b", text)) - len(re.findall(r"\bjoin(?:_any|_none)?\b", text))
    text += "\njoin" * max(0, forks) + "\nend" * max(0, opened)
    if not re.search(r"^\s*(initial|always)\b", text, re.M):
        text = "initial begin\n" + text + "\n#10 $finish;\nend"
    return text + "\n", ""
