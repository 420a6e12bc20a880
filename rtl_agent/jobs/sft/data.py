"""Training pairs for `rtl-agent sft`, in the exact chat formats the jobs send (rtl_agent.prompts):

    spec -> module            rtl_prompt + prefill "```verilog\\nmodule <top>"   (regress, optimize --from-spec)
    design + report -> edit   edit_prompt, full (prefill "```verilog\\nmodule <top>") and diff
                              (prefill "```verilog\\n<<<<<<< SEARCH\\n")            (optimize)
    design -> stimulus        stimulus_prompt, no prefill                          (cover)

Sources: generated designs (rtl_agent.jobs.sft.generator; every variant linted, proven equivalent to the family's
first one and synthesized before use), RTL files and folders (split into modules), the project's tasks.
RTLLM, VerilogEval and the headroom rewrites are evaluation sets (designs.evalsets says which paths and texts): a path
inside any, or a file whose text is one of theirs, is refused, and `overlap` measures what is left against both (exact
hash and token n-grams).
"""
from __future__ import annotations

import difflib
import hashlib
import re
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from designs.evalsets import HDL, eval_items, is_eval_path  # noqa: F401 - eval_items: callers ask here too
from eda.hdl import normalise, strip_comments
from rtl_agent import prompts
from rtl_agent.edits import apply_blocks
from rtl_agent.focus import View

NGRAM = 10                  # tokens per n-gram in the overlap check
DROP_AT = 0.5               # a pair sharing this share of its n-grams with one evaluation item is dropped


def example(kind, source, messages, prefill, answer) -> dict:
    return {"kind": kind, "source": source, "messages": messages, "prefill": prefill, "answer": answer}


def _body_after(code: str, prefill_tail: str) -> str:
    """The answer after a prefill that ends with `module <top>`: the rest of the code, then the fence."""
    i = code.index(prefill_tail)
    return code[i + len(prefill_tail):].rstrip() + "\n```"


def rtl_pair(source, spec, top, ports, code, typed=None) -> dict:
    """spec -> module. With typed ports [(name, dir, width, signed)] the answer is prefilled with the header
    built from them (as regress and optimize --from-spec do) and the pair teaches the body only."""
    msgs = prompts.rtl_prompt(spec, top, ports)
    end = prompts.header_end(code, top) if typed else None
    if end is not None:
        pre = prompts.rtl_prefill(top, typed)
        return example("rtl", source, msgs, pre, code[end:].lstrip("\n").rstrip() + "\n```")
    return example("rtl", source, msgs, prompts.prefill_for("full", top), _body_after(code, f"module {top}"))


def diff_blocks(parent: str, child: str) -> str | None:
    """SEARCH/REPLACE blocks turning parent into child (one per changed hunk, one line of context where a
    hunk only inserts), or None when they do not reproduce child exactly."""
    a, b = parent.splitlines(), child.splitlines()
    out = []
    for tag, i1, i2, j1, j2 in difflib.SequenceMatcher(None, a, b, autojunk=False).get_opcodes():
        if tag == "equal":
            continue
        if i1 == i2:                 # pure insertion: anchor on the line above
            i1, j1 = i1 - 1, j1 - 1
        out.append("<<<<<<< SEARCH\n" + "".join(x + "\n" for x in a[i1:i2]) + "=======\n"
                   + "".join(x + "\n" for x in b[j1:j2]) + ">>>>>>> REPLACE\n")
    text = "".join(out)
    res = apply_blocks(parent, [(s, r) for s, r in re.findall(
        r"<<<<<<< SEARCH\n(.*?)=======\n(.*?)>>>>>>> REPLACE\n", text, re.S)])
    return text if res.applied and normalise(res.code) == normalise(child) else None


def edit_pairs(source, spec, top, parent, rep, child) -> list:
    """Edit pairs from parent to child, the prompt showing parent's report (an eda.report.Report)."""
    view = View("whole", parent, None, len(parent.splitlines()))
    report = rep.to_dict()
    out = []
    pre = prompts.prefill_for("full", top)
    out.append(example("edit-full", source, prompts.edit_prompt(spec, view, report, top, "full"), pre,
                       _body_after(child, f"module {top}")))
    blocks = diff_blocks(parent, child)
    if blocks:
        pre = prompts.prefill_for("diff", top)
        out.append(example("edit-diff", source, prompts.edit_prompt(spec, view, report, top, "diff"), pre,
                           blocks[len("<<<<<<< SEARCH\n"):] + "```"))
    return out


def line_pairs(pairs: list, seed=0, per_parent=3, keep_lhs=True) -> list:
    """One-line edit pairs (kind edit-line) from the edit-diff pairs' prompts of generated designs: the
    optimize job's one-line edit format (SEARCH prefilled with one statement of the parent and, with keep_lhs,
    the replacement up to its `=`; the answer the rest of the line), with a behaviour-preserving rewrite of
    that statement (rtl_agent.rewrites) as the answer."""
    import random

    from rtl_agent.edits import targets
    from rtl_agent.rewrites import rewrite_line
    rng, out, seen = random.Random(seed), [], set()
    for p in pairs:
        if p["kind"] != "edit-diff" or not p["source"].startswith("gen"):
            continue
        m = re.search(r"Current design:\n```verilog\n(.*?)\n```", p["messages"][-1]["content"], re.S)
        if not m:
            continue
        if m.group(1) in seen:      # a parent appears once per child it has
            continue
        seen.add(m.group(1))
        lines = m.group(1).splitlines()
        got = 0
        for i in targets(m.group(1)):
            new = rewrite_line(lines[i], rng)
            if new is None:
                continue
            head = prompts.edit_head(lines[i], keep_lhs)
            assert new.startswith(head), (new, head)       # the rules keep indentation and left-hand side
            pre = prompts.prefill_for("diff", "") + prompts.target_prefill(lines[i], True, keep_lhs)
            out.append(example("edit-line", p["source"], p["messages"], pre, new[len(head):] + "\n"))
            got += 1
            if got == per_parent:
                break
    return out


def stim_pair(source, spec, code, top, ports: dict, widths: dict, clock=None, reset=None) -> dict:
    """A constrained-random stimulus answer in the cover job's shape (statements of an initial block)."""
    ins = [p for p, d in ports.items() if d == "input" and p not in (clock, reset)]
    lines = []
    if clock:
        if reset:
            lines += [f"{reset} = 1;"] + [f"{p} = 0;" for p in ins] + ["repeat (2) @(negedge clk);".replace("clk", clock),
                                                                      f"{reset} = 0;"]
        lines += ["repeat (40) begin", f"  @(negedge {clock});"] + [f"  {p} = $random;" for p in ins] + ["end"]
        if reset:
            lines += [f"{reset} = 1;", f"@(negedge {clock});", f"{reset} = 0;"]
        lines += [f"@(negedge {clock});"]
    else:
        lines += ["repeat (40) begin"] + [f"  {p} = $random;" for p in ins] + ["  #10;", "end"]
        for v in ("0", "-1"):        # the corners random values rarely hit
            lines += [f"{p} = {v};" for p in ins] + ["#10;"]
    answer = "```verilog\n// from: reset\n" + "\n".join(lines + ["$finish;"]) + "\n```"
    return example("stim", source, prompts.stimulus_prompt(spec, code, top), "", answer)


# ---- generated designs ---------------------------------------------------------------------------
def _check_design(d, pdk):
    """[(variant, eda.report.Report)] for the variants that lint, prove equivalent to the first and synthesize."""
    from dataclasses import replace

    from eda.flow import FlowJob, evaluate
    from eda.report import is_proven
    ok = []
    job = FlowJob(top=d.top, pdk=pdk, ref={f"{d.top}.v": d.variants[0]}, clock=d.clock, reset=d.reset,
                  stages=("lint", "equiv", "synth", "sta"), use_cache=False)
    for i, v in enumerate(d.variants):
        rep = evaluate(job, {f"{d.top}.v": v})
        syn, lint = rep.stage("synth"), rep.stage("lint")
        wiring = syn is not None and syn.status == "fail" and any("empty netlist" in x.message
                                                                  for x in syn.diagnostics)
        if wiring and lint is not None and lint.status == "pass":
            rep = replace(rep, status="pass", ppa=None)   # pure wiring (e.g. bit reversal): no cells
        if rep.ok and (i == 0 or is_proven(rep.equiv_status or "")):
            ok.append((v, rep))
    return ok


def generated(seed=0, per_family=4, pdk="nangate45", workers=2, log=print, families="base",
              rename=0.0) -> tuple[list, dict]:
    """Pairs from rtl_agent.jobs.sft.generator designs, each variant verified; (pairs, counts)."""
    from rtl_agent.jobs.sft.generator import designs
    ds = designs(seed, per_family, families, rename)
    with ThreadPoolExecutor(max(1, workers)) as ex:
        checked = list(ex.map(lambda d: _check_design(d, pdk), ds))
    pairs, n_var, n_ok = [], 0, 0
    for d, ok in zip(ds, checked):
        n_var += len(d.variants)
        n_ok += len(ok)
        src = f"gen:{d.family}"
        typed = [(n, dr, d.widths.get(n, 1), False) for n, dr in d.ports.items()]
        for v, _ in ok:
            pairs.append(rtl_pair(src, d.spec, d.top, d.ports, v, typed))
        # edits go from a variant to one whose PPA is no worse (the optimize goal), else either way
        for (pv, prep), (cv, crep) in ((x, y) for x in ok for y in ok if x[0] != y[0]):
            if (crep.ppa or 0) <= (prep.ppa or 0) or ok.index((cv, crep)) == 0:
                pairs += edit_pairs(src, d.spec, d.top, pv, prep, cv)
        if ok:
            pairs.append(stim_pair(src, d.spec, ok[0][0], d.top, d.ports, d.widths, d.clock, d.reset))
    log(f"generated: {len(ds)} designs, {n_ok}/{n_var} variants verified (lint, equivalence, synthesis)")
    return pairs, {"designs": len(ds), "variants": n_var, "verified": n_ok, "families": families, "rename": rename}


# ---- files (eval_items, is_eval_path: designs.evalsets) ----------------------------------------------
def _hash(text: str) -> str:
    return hashlib.sha256(normalise(text).encode()).hexdigest()


def collect_files(paths, evals: dict) -> list[Path]:
    """HDL files under the given files/folders; refuses evaluation sets by path and by content."""
    known = {_hash(t): (s, n) for s, items in evals.items() for n, t in items.items()}
    files = []
    for p in map(Path, paths):
        if not p.exists():
            raise FileNotFoundError(f"--data {p}: no such file or folder")
        if is_eval_path(p):
            raise ValueError(f"--data {p}: RTLLM, VerilogEval and bench/headroom are evaluation sets; never train on them")
        found = [p] if p.is_file() else sorted(f for f in p.rglob("*") if f.suffix in HDL and f.is_file())
        for f in found:
            hit = known.get(_hash(f.read_text(errors="replace")))
            if hit:
                raise ValueError(f"--data {f}: same text as {hit[0]} item {hit[1]}; never train on evaluation sets")
        files += found
    return files


def _preceding_comment(text: str, start: int) -> str:
    """The comment block right above a module: its description (skipping licence boilerplate)."""
    head = text[:start].rstrip()
    m = re.search(r"(/\*(?:(?!\*/).)*\*/|(?://[^\n]*\n?)+)\s*$", head + "\n", re.S)
    if not m:
        return ""
    c = re.sub(r"^\s*(/\*+|\*+/?|//+)", "", m.group(1), flags=re.M).strip()
    return "" if re.search(r"copyright|permission is hereby", c, re.I) else c


def file_pairs(files, root_of=lambda f: f.parent) -> list:
    """spec -> module for every module of the files (spec: the comment above it, or its name and ports)."""
    out = []
    for f in files:
        text = f.read_text(errors="replace")
        text = re.sub(r"^`resetall.*$|^`default_nettype.*$|^`timescale.*$", "", text, flags=re.M)
        for name, s, e, complete in prompts._modules(text):
            if not complete:
                continue
            code = text[s:e].strip() + "\n"
            desc = _preceding_comment(text, s) or f"Module {name}."
            ports = prompts.port_names(code)
            out.append(rtl_pair(f"file:{f.name}", desc, name, ports, code))
    return out


def task_pairs(suite="designs") -> list:
    """spec -> reference and design -> stimulus for the project's own tasks."""
    from designs import load_suite
    out = []
    for t in load_suite(suite):
        code = "\n".join(t.reference_sources().values())
        ports = {p.name: p.direction for p in t.ports}
        if f"module {t.top}" in code:
            out.append(rtl_pair(f"task:{t.name}", t.spec, t.top, ports, code, t.ports))
        out.append(stim_pair(f"task:{t.name}", t.spec, code, t.top, ports, {}, t.clock, t.reset))
    return out


# ---- overlap with the evaluation sets --------------------------------------------------------------
_TOK = re.compile(r"[A-Za-z_]\w*|\d+'[bdhoBDHO][0-9a-fA-FxXzZ_]+|\d+|[^\s\w]")


def ngrams(text: str, n=NGRAM) -> set:
    t = _TOK.findall(strip_comments(text))
    return {" ".join(t[i:i + n]) for i in range(len(t) - n + 1)}


def train_ngrams(pairs: list) -> set:
    """Every n-gram of the pairs' answers as trained (prefill + answer)."""
    return set().union(*(ngrams(p["prefill"] + p["answer"]) for p in pairs)) if pairs else set()


def item_shares(items: dict, train: set) -> dict:
    """{item name: the fraction of its n-grams found in train}."""
    out = {}
    for name, t in items.items():
        g = ngrams(t)
        out[name] = len(g & train) / len(g) if g else 0.0
    return out


def overlap(pairs: list, evals: dict, drop_at=DROP_AT) -> tuple[list, dict]:
    """(kept pairs, report). A pair is dropped when its answer's text is an evaluation item's (hash) or
    when >= drop_at of its answer's n-grams occur in one evaluation item. The report also gives, per
    suite, how many items share >= 50% of their n-grams with all kept answers together."""
    index, hashes = {}, {}
    for s, items in evals.items():
        for n, t in items.items():
            hashes[_hash(t)] = (s, n)
            for g in ngrams(t):
                index.setdefault(g, set()).add((s, n))
    kept, dropped = [], {"hash": 0, "ngram": 0}
    worst = 0.0
    for p in pairs:
        ans = p["answer"]
        full = p["prefill"] + ans
        if _hash(full.replace("```verilog", "").replace("```", "")) in hashes:
            dropped["hash"] += 1
            continue
        gs = ngrams(full)
        hits = {}
        for g in gs:
            for k in index.get(g, ()):
                hits[k] = hits.get(k, 0) + 1
        share = max(hits.values()) / len(gs) if hits and gs else 0.0
        if share >= drop_at:
            dropped["ngram"] += 1
            continue
        worst = max(worst, share)
        kept.append(p)
    train = train_ngrams(kept)
    per_suite = {}
    for s, items in evals.items():
        shares = list(item_shares(items, train).values())
        per_suite[s] = {"items": len(items), "max_share": round(max(shares, default=0), 3),
                        "items_ge_50pct": sum(x >= 0.5 for x in shares),
                        "items_ge_20pct": sum(x >= 0.2 for x in shares)}
    return kept, {"ngram": NGRAM, "drop_at": drop_at, "dropped": dropped,
                  "max_pair_share_kept": round(worst, 3), "suites": per_suite}
