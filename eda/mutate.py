"""Small deliberate bugs in a design, to measure how much a check catches.

Token rewriting on the comment-stripped source (line numbers kept): operator swaps,
constant changes, bit flips in literals, stuck-at right-hand sides, negated
conditions, off-by-one in comparisons and ranges.  Port declarations are left alone
(a changed port width is an interface error, not a mutant).  Deterministic for a seed.

    for m in mutants({"ref.v": text}, n=20, seed=1): m.sources, m.kind, m.desc
"""
import random
import re
from dataclasses import dataclass

from .hdl import strip_comments

SWAPS = {"+": "-", "-": "+", "&": "|", "|": "&", "^": "&", "&&": "||", "||": "&&", "==": "!=", "!=": "==",
         "<<": ">>", ">>": "<<", "*": "+", "~": ""}
COMPARE = {"<": "<=", "<=": "<", ">": ">=", ">=": ">"}   # off-by-one in comparisons
_TOKEN = re.compile(r"(?P<num>\d+\s*'\s*[sS]?[bBoOdDhH]\s*[0-9a-fA-FxXzZ_]+|\b\d+\b)|(?P<op>&&|\|\||==|!=|<<|>>|<=|>=|[-+*&|^~<>])"
                    r"|(?P<str>\"(?:[^\"\\\n]|\\.)*\")|(?P<paren>[()\[\]])|(?P<word>[A-Za-z_][\w$]*)|(?P<semi>;)")
_SKIP_LINE = re.compile(r"^\s*(`|input\b|output\b|inout\b|parameter\b|localparam\b|module\b)")
_ASSIGN = re.compile(r"(?:(?<=[;\n)])|(?<=\bbegin)|(?<=\belse))(\s*(?:assign\s+)?[A-Za-z_][\w$]*(?:\s*\[[^\]]*\])?"
                     r"\s*(?<![=!<>])(?:<=|=)(?!=)\s*)([^;]+?)\s*;")


@dataclass
class Mutant:
    id: int
    kind: str          # operator | compare | constant | bitflip | stuck0 | stuck1 | negate | range
    desc: str          # "file.v:12: '+' -> '-'"
    sources: dict      # name -> mutated text (other files unchanged)


def _num_variants(tok: str) -> list:
    m = re.fullmatch(r"(\d+)\s*'\s*([sS]?)([bBoOdDhH])\s*([0-9a-fA-F_]+)", tok)
    if m:
        w, s, base, digits = int(m.group(1)), m.group(2), m.group(3).lower(), m.group(4).replace("_", "")
        try:
            v = int(digits, {"b": 2, "o": 8, "d": 10, "h": 16}[base])
        except ValueError:
            return []
        mask = (1 << w) - 1 if 0 < w <= 4096 else None
        if mask is None:
            return []
        out = [("constant", f"{w}'{s}h{(v + 1) & mask:x}")]
        bit = (v.bit_length() - 1) if v else 0
        out.append(("bitflip", f"{w}'{s}h{(v ^ (1 << min(bit, w - 1))) & mask:x}"))
        return out
    if tok.isdigit():
        v = int(tok)
        return [("constant", str(v + 1))] + ([("constant", str(v - 1))] if v > 0 else [])
    return []


def _sites(name: str, text: str) -> list:
    """(start, end, replacement, kind, line) for every mutation point in one file."""
    code = strip_comments(text)
    sites, depth, bracket = [], 0, 0
    lines = code.split("\n")
    offs, pos = [], 0
    for ln in lines:
        offs.append(pos)
        pos += len(ln) + 1
    skip = {i for i, ln in enumerate(lines) if _SKIP_LINE.match(ln)}
    # a port list `module m(input ...)` spans lines up to ');'
    in_header = False
    for i, ln in enumerate(lines):
        if re.match(r"^\s*module\b", ln):
            in_header = True
        if in_header:
            skip.add(i)
            if ");" in ln:
                in_header = False

    def line_of(p):
        lo, hi = 0, len(offs) - 1
        while lo < hi:
            mid = (lo + hi + 1) // 2
            if offs[mid] <= p:
                lo = mid
            else:
                hi = mid - 1
        return lo
    for m in _TOKEN.finditer(code):
        li = line_of(m.start())
        kind = m.lastgroup
        tok = m.group(0)
        if kind == "paren":
            depth += {"(": 1, ")": -1}.get(tok, 0)
            bracket += {"[": 1, "]": -1}.get(tok, 0)
            continue
        if li in skip or kind in ("str", "word", "semi"):
            continue
        if kind == "op":
            if tok in COMPARE:
                if tok == "<=" and depth == 0:
                    continue                                  # non-blocking assignment
                if bracket == 0:
                    sites.append((m.start(), m.end(), COMPARE[tok], "compare", li + 1))
            elif tok in SWAPS and bracket == 0:
                if tok == "~" and code[m.end():m.end() + 1] in ("&", "|", "^"):
                    continue                                  # reduction ~& ~| ~^
                if tok in "&|^" and code[m.start() - 1:m.start()] in ("(", "=", " ", "{", "!", "~") and \
                        re.match(r"\s*[A-Za-z_(]", code[m.end():]) and \
                        re.search(r"[=(,{!~?:]\s*$", code[:m.start()]):
                    continue                                  # unary reduction operator
                sites.append((m.start(), m.end(), SWAPS[tok], "operator", li + 1))
        elif kind == "num":
            for k, rep in _num_variants(tok):
                if bracket:
                    k = "range"                                 # off-by-one in a range or index
                sites.append((m.start(), m.end(), rep, k, li + 1))
    for m in _ASSIGN.finditer(code):
        li = line_of(m.start())
        if li in skip or m.group(1).lstrip().startswith(("for", "if")):
            continue
        s, e = m.start(2), m.end(2)
        sites.append((s, e, "0", "stuck0", li + 1))
        sites.append((s, e, "{64{1'b1}}", "stuck1", li + 1))
    for m in re.finditer(r"\bif\s*\(", code):
        li = line_of(m.start())
        if li in skip:
            continue
        j, d = m.end(), 1
        while j < len(code) and d:
            d += {"(": 1, ")": -1}.get(code[j], 0)
            j += 1
        sites.append((m.end() - 1, j, f"(!{code[m.end() - 1:j]})", "negate", li + 1))
    return sites, code


def mutants(sources: dict, n: int = 20, seed: int = 1) -> list:
    """Up to `n` distinct mutants, spread over the kinds of mutation, deterministic for `seed`."""
    rnd = random.Random(seed)
    by_kind: dict = {}
    for name, text in sources.items():
        if not isinstance(text, str) or not name.endswith((".v", ".sv")):
            continue
        sites, code = _sites(name, text)
        for s, e, rep, kind, line in sites:
            by_kind.setdefault(kind, []).append((name, code, s, e, rep, line))
    for k in sorted(by_kind):
        rnd.shuffle(by_kind[k])
    out, seen = [], set()
    kinds = sorted(by_kind)
    while len(out) < n and any(by_kind.values()):
        for k in kinds:
            if not by_kind[k] or len(out) >= n:
                continue
            name, code, s, e, rep, line = by_kind[k].pop()
            new = code[:s] + rep + code[e:]
            if new == code or (name, new) in seen:
                continue
            seen.add((name, new))
            srcs = dict(sources)
            srcs[name] = new
            old = " ".join(code[s:e].split())
            out.append(Mutant(len(out), k, f"{name}:{line}: '{old[:40]}' -> '{' '.join(rep.split())[:40]}'", srcs))
    return out
