"""Behaviour-preserving rewrites of one Verilog statement line (`assign x = e;`, `x = e;`, `x <= e;`), for
the one-line edit pairs of `rtl-agent sft` (kind edit-line): they teach the shape of an answer that keeps
the design equivalent. Each rule is sound for two-state logic by the language's own rules; the EDA checks
still judge every candidate the model writes."""
from __future__ import annotations

import random
import re

# One assignment statement on one line: indent, head (`assign x =`, `q <=`, `S4: next =`), space, the
# right-hand side, then `;` and an optional comment. The one definition of such a line: edits.targets
# takes the lines it splits whose head is a plain left-hand side (is_target).
_LINE = re.compile(r"^(\s*)((?:assign\s+)?[^=<>!]*?(?:<=|=))(?!=)(\s*)(.*?);(\s*(?://.*)?)$")
_PLAIN_HEAD = re.compile(r"assign\b.*|[A-Za-z_][\w\[\]:.\s{},]*<?=")
_COMMUTE = ("&&", "||", "==", "!=", "+", "*", "&", "|", "^")
_ZERO = r"(?:\d*'[dhb]0+|0)"
_ATOM = r"[A-Za-z_]\w*(?:\[[^\]]+\])?"
_OPEN, _CLOSE = "([{", ")]}"


def statement_head(line: str) -> str | None:
    """The part of a statement line up to and including its `=`/`<=` (indentation, `assign`, a case label and
    the left-hand side), or None when the line is not one assignment."""
    m = _LINE.match(line)
    return line[:m.end(2)] if m else None


def is_target(line: str) -> bool:
    """A one-line assignment whose left-hand side is a plain name, slice or concatenation (not a
    continuation line of a call or a conditional that happens to hold an `=`)."""
    m = _LINE.match(line)
    return bool(m) and bool(_PLAIN_HEAD.fullmatch(m.group(2).lstrip()))


def _top_ops(e: str) -> list[tuple[int, str]]:
    """(index, operator) of the binary operators at bracket depth 0 (unary ones skipped)."""
    out, depth, i, prev = [], 0, 0, ""
    ops = ("===", "!==", "<<<", ">>>", "**", "&&", "||", "==", "!=", "<=", ">=", "<<", ">>", "~^", "^~", "+", "-",
           "*", "/", "%", "&", "|", "^", "<", ">", "?", ":", "~")     # longest first
    while i < len(e):
        c = e[i]
        if c in _OPEN:
            depth += 1
        elif c in _CLOSE:
            depth -= 1
        elif c == "'":                       # a sized literal: 8'hFF, 4'b1010
            m = re.match(r"'[sS]?[dhbo][0-9a-fA-FxXzZ_]+", e[i:])
            if m:
                i += len(m.group(0))
                prev = "a"
                continue
        elif not c.isspace() and depth == 0:
            op = next((o for o in ops if e.startswith(o, i)), None)
            if op:
                if prev in ("a", ")") and op != "~":   # binary: follows an operand
                    out.append((i, op))
                prev = "op"
                i += len(op)
                continue
        if not c.isspace():
            prev = ")" if c in _CLOSE else ("a" if depth == 0 else prev)
            if c.isalnum() or c == "_":
                prev = "a"
        i += 1
    return out


_LEVEL = {"**": 10, "*": 9, "/": 9, "%": 9, "+": 8, "-": 8, "<<": 7, ">>": 7, "<<<": 7, ">>>": 7, "<": 6, "<=": 6,
          ">": 6, ">=": 6, "==": 5, "!=": 5, "===": 5, "!==": 5, "&": 4, "^": 3, "~^": 3, "^~": 3, "|": 2, "&&": 1,
          "||": 0}


def commute(e: str) -> str | None:
    """Rotate the operands of the loosest-binding top-level operator when it is commutative and associative
    (`x + y*z` -> `y*z + x`, `a | b | c` -> `c | a | b`; `==`/`!=` only alone)."""
    ops = _top_ops(e)
    if not ops or any(o in "?:" for _, o in ops):
        return None
    low = min(_LEVEL[o] for _, o in ops)
    cut = [(i, o) for i, o in ops if _LEVEL[o] == low]
    kinds = {o for _, o in cut}
    if len(kinds) != 1 or not kinds <= set(_COMMUTE) or (len(cut) > 1 and kinds & {"==", "!="}):
        return None
    op, idx = cut[0][1], [i for i, _ in cut]
    parts = [e[a:b].strip() for a, b in zip([0] + [i + len(op) for i in idx], idx + [len(e)])]
    if not all(parts) or len(set(parts)) == 1:
        return None
    return f" {op} ".join(parts[-1:] + parts[:-1])


def literal(e: str) -> str | None:
    """A sized binary or hex literal written in decimal (`4'b0000` -> `4'd0`, `8'hFF` -> `8'd255`); the same
    width and value. The first such literal only."""
    m = re.search(r"(\d+)'([bh])([0-9a-fA-F_]+)\b", e)
    if not m:
        return None
    v = int(m.group(3).replace("_", ""), 2 if m.group(2) == "b" else 16)
    return e[:m.start()] + f"{m.group(1)}'d{v}" + e[m.end():]


def _inside(rule):
    """The rule applied inside one wrapping pair of parentheses, `(x)` or `~(x)`, when it does not apply whole."""
    def go(e: str) -> str | None:
        new = rule(e)
        if new is not None:
            return new
        m = re.fullmatch(r"([~!]?)\((.*)\)", e.strip(), re.S)
        if m and not _top_ops(e.strip()[len(m.group(1)):]):     # one pair of parentheses wraps it all
            inner = go(m.group(2).strip())
            return f"{m.group(1)}({inner})" if inner is not None else None
        return None
    go.__name__ = rule.__name__
    return go


def zero_test(e: str) -> str | None:
    """`x == 0` -> `~|x` and `x != 0` -> `|x`, for a signal or a select of one (alone or in parentheses)."""
    m = re.fullmatch(rf"(\(?)\s*({_ATOM})\s*(==|!=)\s*{_ZERO}\s*(\)?)", e)
    if not m or bool(m.group(1)) != bool(m.group(4)):
        return None
    red = ("~|" if m.group(3) == "==" else "|") + m.group(2)
    return f"({red})" if m.group(1) else red


def _arms(e: str) -> tuple[str, str, str] | None:
    """(condition, then, else) of a top-level conditional whose arms hold no other one, or None."""
    ops = _top_ops(e)
    q = [i for i, o in ops if o == "?"]
    colon = [i for i, o in ops if o == ":"]
    if len(q) != 1 or len(colon) != 1 or colon[0] < q[0]:
        return None
    c, a, b = e[:q[0]].strip(), e[q[0] + 1:colon[0]].strip(), e[colon[0] + 1:].strip()
    return (c, a, b) if c and a and b else None


def _parenthesised(x: str) -> bool:
    """One pair of parentheses wraps all of x."""
    return x.startswith("(") and x.endswith(")") and not _top_ops(x)


def ternary(e: str) -> str | None:
    """`c ? a : b` -> `!(c) ? b : a` for a top-level conditional whose arms hold no other one."""
    arms = _arms(e)
    if not arms or arms[1] == arms[2]:
        return None
    c, a, b = arms
    if c.startswith("!") and not _top_ops(c[1:]):
        c = c[1:].strip()
    else:
        c = f"!{c}" if _parenthesised(c) else f"!({c})"
    return f"{c} ? {b} : {a}"


def bool_ternary(e: str) -> str | None:
    """`c ? 1'b1 : 1'b0` -> `|(c)` and `c ? 1'b0 : 1'b1` -> `~|(c)`: both one bit wide, true when c is."""
    arms = _arms(e)
    if not arms:
        return None
    c, a, b = arms
    one, zero = r"1'[bdh]1", r"1'[bdh]0"
    c = c if _parenthesised(c) else f"({c})"
    if re.fullmatch(one, a) and re.fullmatch(zero, b):
        return f"|{c}"
    if re.fullmatch(zero, a) and re.fullmatch(one, b):
        return f"~|{c}"
    return None


def demorgan(e: str) -> str | None:
    """`~(a & b)` -> `~a | ~b`, `~(a | b)` -> `~a & ~b`, and the same for `!`/`&&`/`||` (operands that are
    not a name, a select or a parenthesised expression get parentheses)."""
    m = re.fullmatch(r"([~!])\((.*)\)", e.strip(), re.S)
    if not m or _top_ops(e.strip()[1:]):
        return None
    neg, inner = m.group(1), m.group(2).strip()
    ops = _top_ops(inner)
    swap = {"~": {"&": "|", "|": "&"}, "!": {"&&": "||", "||": "&&"}}[neg]
    if not ops or any(o in "?:" for _, o in ops):
        return None
    low = min(_LEVEL[o] for _, o in ops)
    ops = [(i, o) for i, o in ops if _LEVEL[o] == low]       # split on the loosest operator only
    if len({o for _, o in ops}) != 1 or ops[0][1] not in swap:
        return None
    op, idx = ops[0][1], [i for i, _ in ops]
    parts = [inner[a:b].strip() for a, b in zip([0] + [i + len(op) for i in idx], idx + [len(inner)])]
    if not all(parts):
        return None
    def wrap(x):
        return x if re.fullmatch(_ATOM, x) or _parenthesised(x) else f"({x})"
    return f" {swap[op]} ".join(neg + wrap(x) for x in parts)


def unwrap(e: str) -> str | None:
    """`(x)` -> `x` when one pair of parentheses wraps the whole right-hand side."""
    e = e.strip()
    if _parenthesised(e) and _top_ops(e[1:-1]):
        return e[1:-1].strip()
    return None


RULES = tuple(_inside(r) for r in (commute, zero_test, ternary, bool_ternary, demorgan)) + (literal, unwrap)


def all_rewrites(line: str) -> dict[str, str]:
    """Every rule's rewrite of one statement line (rule name -> new line, keeping its indentation and left-hand
    side); empty when the line is not one assignment or no rule applies."""
    m = _LINE.match(line)
    if not m:
        return {}
    ind, lhs, sp, rhs, _ = m.groups()
    out = {}
    for rule in RULES:
        new = rule(rhs.strip())
        if new and new != rhs.strip():
            out[rule.__name__] = f"{ind}{lhs}{sp or ' '}{new};"
    return out


def rewrite_line(line: str, rng: random.Random) -> str | None:
    """One statement line rewritten by a rule that applies (chosen by rng), keeping its indentation and
    left-hand side, or None when none applies."""
    if not _LINE.match(line):
        return None
    found = all_rewrites(line)
    rules = list(RULES)
    rng.shuffle(rules)
    return next((found[r.__name__] for r in rules if r.__name__ in found), None)
