"""Edit actions: SEARCH/REPLACE blocks against a parent design.

    <<<<<<< SEARCH
    lines of the parent, copied
    =======
    the lines that replace them
    >>>>>>> REPLACE

A completion may hold several blocks (in or out of a ```verilog fence). Each block is applied in
order to the text left by the previous one: exactly, then ignoring whitespace (line by line), then
by the closest window of lines above a similarity threshold (difflib). A block that matches
nowhere fails the whole edit; the error names the block and shows the parent's closest lines, so
a re-prompt can ask for a corrected block. `region` (a (first, last) 1-based line range of the
parent) restricts where blocks may match: the focus mode accepts edits only in the region it showed.
What the model is told about the format: rtl_agent.prompts.edit.DIFF_HOWTO.
"""
from __future__ import annotations

import difflib
import re
from dataclasses import dataclass, field

from eda.hdl import normalise

from .rewrites import is_target

# a block ends at its REPLACE marker, or, when the marker was left out, at the closing fence or the
# next block's SEARCH marker
_BLOCK = re.compile(r"^[ \t]*<{5,9}[ \t]*SEARCH[^\n]*\n(.*?)^[ \t]*={5,9}[ \t]*\n(.*?)"
                    r"^[ \t]*(?:>{5,9}[ \t]*REPLACE[^\n]*$|```[ \t]*$|(?=<{5,9}[ \t]*SEARCH))", re.S | re.M)
_OPEN = re.compile(r"<{5,9}[ \t]*SEARCH")
THRESHOLD = 0.8          # similarity a fuzzy match must reach (difflib ratio over the joined lines)


@dataclass
class EditResult:
    code: str | None                       # the edited design, None when the edit did not apply
    blocks: int = 0                        # blocks found
    how: list = field(default_factory=list)    # per applied block: exact | whitespace | fuzzy
    error: str = ""                        # why it did not apply
    closest: str = ""                      # the parent's lines closest to the failing block

    @property
    def applied(self) -> bool:
        return self.code is not None


def has_blocks(text: str) -> bool:
    return bool(_OPEN.search(text or ""))


def parse_blocks(text: str) -> list[tuple[str, str]]:
    """[(search, replace)] in order; a block cut off before its REPLACE marker is not returned."""
    out = []
    for m in _BLOCK.finditer(text or ""):
        out.append((m.group(1), m.group(2)))
    return out


def _lines(s: str) -> list[str]:
    return s.splitlines()


def _ws(s: str) -> str:
    return re.sub(r"\s+", " ", s).strip()


def _locate(lines: list[str], search: list[str], lo: int, hi: int, threshold: float):
    """(start, end, how, score) of the window of `lines` within [lo, hi) that `search` matches, or
    (None, None, None, (best_start, best_end, best_ratio)) when none does."""
    k = len(search)
    want_ws = [_ws(x) for x in search]
    # ignoring whitespace: the same non-blank lines in the same order, all whitespace removed
    nb = [re.sub(r"\s+", "", x) for x in search if x.strip()]
    for i in range(lo, hi):
        got, j = [], i
        while j < hi and len(got) < len(nb):
            if lines[j].strip():
                got.append(re.sub(r"\s+", "", lines[j]))
            j += 1
        if nb and got == nb and lines[i].strip():
            return i, j, "whitespace", 1.0
    target = "\n".join(want_ws)
    best = (lo, lo, 0.0)
    for size in sorted({max(1, k - 1), k, k + 1}):
        for i in range(lo, max(lo, hi - size) + 1):
            window = "\n".join(_ws(x) for x in lines[i:i + size])
            sm = difflib.SequenceMatcher(None, target, window, autojunk=False)
            if sm.real_quick_ratio() < best[2] or sm.quick_ratio() < best[2]:
                continue
            r = sm.ratio()
            if r > best[2]:
                best = (i, i + size, r)
    if best[2] >= threshold:
        return best[0], best[1], "fuzzy", best[2]
    return None, None, None, best


def apply_blocks(parent: str, blocks, threshold: float = THRESHOLD, region: tuple | None = None) -> EditResult:
    """Apply `blocks` ([(search, replace)]) to `parent`; see the module docstring."""
    blocks = list(blocks)
    res = EditResult(None, len(blocks))
    if not blocks:
        res.error = "no complete SEARCH/REPLACE block (<<<<<<< SEARCH ... ======= ... >>>>>>> REPLACE)"
        return res
    text = parent
    for b, (search, replace) in enumerate(blocks, 1):
        if not search.strip():
            res.error = f"block {b}: the SEARCH part is empty; copy the lines to change from the design"
            return res
        lines = _lines(text)
        lo, hi = 0, len(lines)
        if region:
            # the region moves with earlier edits by the change in line count above it
            shift = len(lines) - len(_lines(parent))
            lo, hi = max(0, region[0] - 1), min(len(lines), region[1] + shift)
        seg_start = sum(len(x) + 1 for x in lines[:lo])
        segment = "\n".join(lines[lo:hi])
        i = segment.find(search.strip("\n"))
        if search.strip("\n") and i >= 0:
            s = seg_start + i
            text = text[:s] + replace.strip("\n") + text[s + len(search.strip("\n")):]
            res.how.append("exact")
            continue
        a, e, how, info = _locate(lines, _lines(search.strip("\n")), lo, hi, threshold)
        if a is None:
            bi, be, ratio = info
            res.error = (f"block {b}: its SEARCH lines are not in the design"
                         + (" region shown" if region else "") + f" (closest match {ratio:.0%} similar)")
            res.closest = "\n".join(f"{n + 1:4d}| {lines[n]}" for n in range(bi, min(be, len(lines))))
            return res
        indent = re.match(r"[ \t]*", lines[a]).group(0) if how == "whitespace" else ""
        new = _lines(replace.strip("\n"))
        if indent and new and not new[0].startswith((" ", "\t")):
            new = [indent + x if x.strip() else x for x in new]
        lines[a:e] = new
        text = "\n".join(lines) + ("\n" if text.endswith("\n") else "")
        res.how.append(how)
    res.code = text
    return res




def targets(code: str, names=(), region: tuple | None = None) -> list[int]:
    """0-based line numbers of single-line statements (assign / = / <=) worth editing, those naming
    critical-path `names` first (within `region`, 1-based inclusive, when given)."""
    lines = code.splitlines()
    lo, hi = (region[0] - 1, region[1]) if region else (0, len(lines))
    found = [i for i in range(lo, min(hi, len(lines))) if is_target(lines[i])]
    hot = [i for i in found if any(re.search(r"\b" + re.escape(w) + r"\b", lines[i]) for w in names)]
    return hot + [i for i in found if i not in hot]


def same_design(a: str | None, b: str | None) -> bool:
    """Identical after removing comments and collapsing whitespace (eda.hdl.normalise)."""
    return a is not None and b is not None and normalise(a) == normalise(b)
