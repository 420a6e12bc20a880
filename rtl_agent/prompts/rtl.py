"""Spec -> RTL: the prompt, the answer starts (prefills, module headers) and extraction of Verilog from
what the model answers."""
from __future__ import annotations

import re
from dataclasses import dataclass, field

from eda.hdl import blank_comments_and_strings as _mask  # comments and strings blanked, offsets kept
from eda.hdl import strip_comments

SYSTEM = ("You are an expert digital hardware engineer. Answer with one complete synthesizable "
          "Verilog-2005 design in a single ```verilog block, no explanation.")


def _clip(text: str, limit: int) -> str:
    text = (text or "").strip()
    return text if len(text) <= limit else text[:limit] + "\n... (truncated)"


def _ports_line(ports) -> str:
    if not ports:
        return ""
    if isinstance(ports, dict):
        return "Ports: " + ", ".join(f"{d} {n}" for n, d in ports.items()) + "\n"
    return "Ports: " + ", ".join(ports) + "\n"


def rtl_prompt(spec: str, top: str, ports=None, max_spec=3000) -> list:
    """Spec -> RTL: write module `top` from a natural-language specification."""
    user = (f"Write the Verilog module `{top}`.\n{_ports_line(ports)}"
            f"Specification:\n{_clip(spec, max_spec)}\n")
    return [{"role": "system", "content": SYSTEM}, {"role": "user", "content": user}]


ACTIONS = ("full", "diff", "mixed")


def prefill_for(action: str, top: str) -> str:
    """The start of the answer for an action: the fence and the module header for a full design,
    the fence and a SEARCH marker for an edit, the fence alone when either is allowed."""
    return {"full": f"```verilog\nmodule {top}", "diff": "```verilog\n<<<<<<< SEARCH\n",
            "mixed": "```verilog\n"}[action]


def module_header(top: str, ports) -> str | None:
    """An ANSI header for `top` from typed ports [(name, direction, width, signed)] (or Port objects), or None
    when widths are unknown. Outputs are `reg`, which compiles as -g2012/-sv does (a variable may be driven by
    one continuous assignment), so the body may use `assign` or `always` alike."""
    rows = []
    for p in ([] if isinstance(ports, dict) else ports or ()):
        if not hasattr(p, "width") and not (isinstance(p, (tuple, list)) and len(p) == 4):
            return None
        name, d, w, sg = (p.name, p.direction, p.width, p.signed) if hasattr(p, "width") else p
        if not w or d not in ("input", "output", "inout"):
            return None
        kind = " reg" if d == "output" else ""
        rows.append(f"  {d}{kind}{' signed' if sg else ''}{f' [{w - 1}:0]' if w > 1 else ''} {name}")
    return f"module {top} (\n" + ",\n".join(rows) + "\n);\n" if rows else None


def header_end(code: str, top: str) -> int | None:
    """Index just past the ANSI header `module top (...);` of code, or None (parameters, non-ANSI ports)."""
    m = re.search(rf"\bmodule\s+{re.escape(top)}\b\s*", code)
    if not m or code[m.end():m.end() + 1] != "(":
        return None
    depth = 0
    for i in range(m.end(), len(code)):
        depth += {"(": 1, ")": -1}.get(code[i], 0)
        if code[i] == ";" and depth == 0:
            body = code[i + 1:]
            return None if re.search(r"^\s*(input|output|inout)\b", strip_comments(body), re.M) else i + 1
    return None


def parent_header(code: str, top: str) -> str | None:
    """The parent's own ANSI header, `module top (...);` and a newline, or None where it has none: the
    prefill of a full rewrite, which must keep the ports, so a small model writes only the body."""
    end = header_end(code, top)
    if end is None:
        return None
    m = re.search(rf"\bmodule\s+{re.escape(top)}\b", code)
    return code[m.start():end] + "\n"


def rtl_prefill(top: str, ports=None) -> str:
    """The answer start for spec -> RTL: the fence and the whole module header when the interface is known
    (the task gives it; a small model gets it wrong more often than anything else), else `module <top>`."""
    head = module_header(top, ports)
    return f"```verilog\n{head}" if head else prefill_for("full", top)


# ---- extraction -------------------------------------------------------------------------------

@dataclass
class Extraction:
    code: str                                       # top + its submodules ("" when nothing usable)
    module_names: list = field(default_factory=list)
    reasons: list = field(default_factory=list)     # problems; empty means it looks usable
    dropped: list = field(default_factory=list)     # modules present but not reachable from top

    @property
    def ok(self) -> bool:
        return bool(self.code) and not self.reasons


_FENCE = re.compile(r"```[ \t]*([A-Za-z0-9_+-]*)[^\n]*\n(.*?)(?:```|\Z)", re.S)
_MODULE = re.compile(r"\b(?:macro)?module\s+(?:automatic\s+|static\s+)?([A-Za-z_]\w*)\s*(?=[#(;])")
_END = re.compile(r"\bendmodule\b(?:\s*:\s*\w+)?")
_DIRECTIVE = re.compile(r"^[ \t]*`(?:timescale|define|default_nettype)\b.*$", re.M)
_KEYWORDS = {"if", "for", "while", "case", "begin", "end", "assign", "always", "initial", "module",
             "function", "task", "return", "else", "wire", "reg", "logic", "input", "output", "inout",
             "generate", "repeat", "forever", "posedge", "negedge", "or", "and", "not", "buf"}


def _candidate_text(completion: str) -> str:
    """Fenced code if any fence holds a module, else the whole completion (chatter is cut later)."""
    blocks = [m.group(2) for m in _FENCE.finditer(completion)]
    code = [b for b in blocks if _MODULE.search(_mask(b))]
    return "\n\n".join(code) if code else completion


def _modules(text: str):
    """[(name, start, end, complete)] for each module in text, in order."""
    masked = _mask(text)
    starts = [(m.start(), m.group(1)) for m in _MODULE.finditer(masked)]
    res = []
    for k, (s, name) in enumerate(starts):
        limit = starts[k + 1][0] if k + 1 < len(starts) else len(text)
        e = _END.search(masked, s, limit)
        res.append((name, s, e.end() if e else limit, bool(e)))
    return res


def _instances(body_masked: str, names: set) -> set:
    """Names of known modules instantiated in a module body."""
    found = set()
    for m in re.finditer(r"\b([A-Za-z_]\w*)\s*(?:#\s*\()?", body_masked):
        w = m.group(1)
        if w in names and w not in _KEYWORDS:
            rest = body_masked[m.end():m.end() + 400]
            if re.match(r"[^;]*?\b[A-Za-z_]\w*\s*(?:\[[^\]]*\]\s*)?\(", rest, re.S) or m.group(0).rstrip().endswith("("):
                found.add(w)
    return found


def port_names(module_src: str) -> list:
    """Port names of one module, ANSI or non-ANSI header (best effort, no preprocessor)."""
    masked = _mask(module_src)
    m = _MODULE.search(masked)
    if not m:
        return []
    i = m.end()
    if masked[i:].lstrip().startswith("#"):             # skip the parameter list
        j = masked.index("(", i)
        depth = 0
        for k in range(j, len(masked)):
            depth += masked[k] == "("
            depth -= masked[k] == ")"
            if depth == 0:
                i = k + 1
                break
    rest = masked[i:].lstrip()
    if not rest.startswith("("):
        return []
    depth, k = 0, masked.index("(", i)
    for k2 in range(k, len(masked)):
        depth += masked[k2] == "("
        depth -= masked[k2] == ")"
        if depth == 0:
            header = masked[k + 1:k2]
            break
    else:
        header = masked[k + 1:]
    header = re.sub(r"\[[^\]]*\]", " ", header)
    names = []
    for piece in header.split(","):
        piece = piece.split("=")[0]
        ids = re.findall(r"[A-Za-z_]\w*", piece)
        if ids:
            names.append(ids[-1])
    return names


def extract_verilog(completion: str, top: str, ports=None) -> Extraction:
    """Verilog for module `top` (plus its submodules) out of an LLM completion.

    Handles fences, chatter, several modules, truncation. Problems come back in .reasons
    (never raised): no module, missing endmodule, wrong top name, port mismatch.
    `ports` is a list of names or a {name: direction} dict.
    """
    if not isinstance(completion, str) or not completion.strip():
        return Extraction("", [], ["empty completion"])
    text = _candidate_text(completion)
    mods = _modules(text)
    if not mods:
        return Extraction("", [], ["no Verilog module found"])
    reasons = []
    names = [m[0] for m in mods]
    by_name = {}
    for m in mods:
        by_name.setdefault(m[0], m)          # a repeated module: keep the first, say so
    dups = sorted({n for n in names if names.count(n) > 1})
    if dups:
        reasons.append(f"module(s) defined more than once: {', '.join(dups)} (kept the first)")
    if top in by_name:
        keep, todo = {top}, [top]
        masked = _mask(text)
        while todo:
            _, s, e, _ = by_name[todo.pop()]
            for sub in _instances(masked[s:e], set(by_name)) - keep:
                keep.add(sub)
                todo.append(sub)
    else:
        keep = set(by_name)
        reasons.append(f"no module named '{top}' (found: {', '.join(by_name)})")
    chosen = [by_name[n] for n in by_name if n in keep]
    for name, s, e, complete in chosen:
        if not complete:
            reasons.append(f"module '{name}' is truncated (no endmodule)")
    directives = _DIRECTIVE.findall(text[:chosen[0][1]]) if chosen else []
    code = "\n".join(directives + [text[s:e].strip() for _, s, e, _ in chosen]).strip() + "\n"
    if top in by_name and ports:
        got = port_names(text[by_name[top][1]:by_name[top][2]])
        want = list(ports)
        missing = [p for p in want if p not in got]
        extra = [p for p in got if p not in want]
        if missing:
            reasons.append(f"module '{top}' lacks port(s): {', '.join(missing)}")
        if extra:
            reasons.append(f"module '{top}' has unexpected port(s): {', '.join(extra)}")
    return Extraction(code, [c[0] for c in chosen], reasons, [n for n in by_name if n not in keep])
