"""Values the design compares its inputs with: the fuzzer's dictionary (AFL's cmp-log), read from the RTL.

`pcpi_insn[6:0] == 7'b0110011` and `case (pcpi_insn[14:12]) 3'b000: ...` make {pcpi_insn: [(0, 7, [0x33]),
(12, 3, [0, 1, 2, 3])]}: a slice that random values hit once in 2^7 (and jointly once in 2^17) is drawn from
the literals the code tests it against. Only plain sized or decimal literals on input slices or whole inputs.
"""
from __future__ import annotations

import re

from eda.hdl import strip_comments

_LIT = r"(\d+\s*'\s*[sS]?[bBhHdDoO]\s*[0-9a-fA-F_]+|\d+)"
_BASES = {"b": 2, "h": 16, "d": 10, "o": 8}


def literal(text: str) -> int | None:
    t = text.replace(" ", "").replace("_", "")
    if "'" not in t:
        return int(t)
    m = re.fullmatch(r"\d*'[sS]?([bBhHdDoO])([0-9a-fA-F]+)", t)
    return int(m.group(2), _BASES[m.group(1).lower()]) if m else None


def dictionary(text: str, inputs, limit: int = 16) -> dict:
    """{input: [(lo, width, [values])]} for inputs (name, width) compared with literals in `text`."""
    text = strip_comments(text)
    out = {}
    for n, w in inputs:
        found = {}
        sl = rf"(?<![\w$.]){re.escape(n)}(?:\s*\[\s*(\d+)\s*(?::\s*(\d+)\s*)?\])?"

        def add(hi, lo, lit):
            hi_ = int(hi) if hi else w - 1
            lo_ = int(lo) if lo else (int(hi) if hi else 0)
            lo_, hi_ = min(lo_, hi_), max(lo_, hi_)
            v = literal(lit)
            if v is not None and hi_ < w:
                found.setdefault((lo_, hi_ - lo_ + 1), set()).add(v & ((1 << (hi_ - lo_ + 1)) - 1))
        for hi, lo, lit in re.findall(sl + r"\s*[!=]==?\s*" + _LIT, text):
            add(hi, lo, lit)
        for m in re.finditer(r"\bcase[xz]?\s*\(\s*" + sl + r"\s*\)(.*?)\bendcase\b", text, re.S):
            labels = r"(?:^|;|\bend\b|\bbegin\b)\s*(" + _LIT + r"(?:\s*,\s*" + _LIT + r")*)\s*:"
            for lab in re.finditer(labels, m.group(3), re.M):
                for lit in re.findall(_LIT, lab.group(1)):
                    add(m.group(1), m.group(2), lit)
        if found:
            out[n] = [(lo, wd, sorted(vs)[:limit]) for (lo, wd), vs in sorted(found.items())]
    return out
