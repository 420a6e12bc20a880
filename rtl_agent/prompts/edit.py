"""Edit and repair prompts: the current design and its EDA report -> a new design or SEARCH/REPLACE edits
(rtl_agent.edits applies them), the re-prompt of an edit that did not apply, and the answer starts of
one-line edits."""
from __future__ import annotations

import re

from eda.report import is_failure

from .rtl import SYSTEM, _clip

EDIT_SYSTEM = ("You are an expert digital hardware engineer. You improve Verilog designs by precise edits. "
               "No explanation.")

DIFF_HOWTO = ("Answer with one or more SEARCH/REPLACE blocks in a ```verilog block. Each block copies "
              "lines of the current design exactly and gives their replacement:\n"
              "```verilog\n<<<<<<< SEARCH\n  assign y = a * b;\n=======\n  assign y = a << 1;\n>>>>>>> REPLACE\n```")


def report_summary(report: dict, max_diags=4, max_log=400, brief=False) -> str:
    """A few lines from a Report.to_dict(): status, PPA numbers, critical path, failing diagnostics.
    brief: without the path's cells and the cell counts (a small context window keeps the design whole)."""
    if not report:
        return "No EDA report."
    lines = [f"Status: {report.get('status', '?')}"]
    ppa = [(k, report.get(k)) for k in ("area_um2", "delay_ns", "power_w", "ppa")]
    if any(v is not None for _, v in ppa):
        lines.append("PPA: " + ", ".join(f"{k}={v:.4g}" for k, v in ppa if isinstance(v, (int, float))))
    for name, st in (report.get("stages") or {}).items():
        data = st.get("data") or {}
        if data.get("startpoint") or data.get("endpoint"):
            lines.append(f"Critical path ({name}): {data.get('startpoint')} -> {data.get('endpoint')}"
                         + (f", {data['delay_ns']:.3g} ns" if isinstance(data.get("delay_ns"), (int, float)) else ""))
        path = data.get("critical_path") or data.get("path")
        if path and not brief:
            p = " -> ".join(map(str, path)) if isinstance(path, (list, tuple)) else _path_cells(str(path))
            lines.append(f"Path ({name}): {_clip(p, 400)}")
        cells = data.get("cell_types")
        if cells and not brief:
            top = sorted(cells.items(), key=lambda kv: -kv[1])[:10]
            lines.append(f"Cells by type ({name}, {data.get('cells', sum(cells.values()))} in all): "
                         + ", ".join(f"{k} {v}" for k, v in top))
        status = st.get("status", "")
        if not is_failure(status):
            continue
        lines.append(f"Stage {name}: {status}")
        diags = st.get("diagnostics") or []
        for d in diags[:max_diags]:
            loc = f"line {d.get('line')}: " if d.get("line") else ""
            lines.append(f"  {loc}{d.get('message', '')}")
        if not diags and st.get("log"):
            lines.append("  " + _clip(st["log"][-max_log:], max_log).replace("\n", "\n  "))
    return "\n".join(lines)


def _path_cells(text: str) -> str:
    """An OpenSTA path report -> 'pin (cell) -> pin (cell) ...' (the table rows that name a cell)."""
    hops = re.findall(r"^\s*[-\d.]+\s+[-\d.]+\s+[v^]\s+(\S+)\s+\(([^)]+)\)", text, re.M)
    return " -> ".join(f"{pin} ({cell})" for pin, cell in hops) if hops else text


def edit_head(line: str, keep_lhs: bool = False) -> str:
    """What a one-line edit's answer starts with: the statement's indentation and, with keep_lhs, its
    left-hand side up to the `=`/`<=` (when it is one assignment)."""
    from rtl_agent.rewrites import statement_head
    return (keep_lhs and statement_head(line)) or line[:len(line) - len(line.lstrip())]


def target_prefill(line: str, one_line: bool = True, keep_lhs: bool = False) -> str:
    """After the SEARCH marker: one statement of the parent as the SEARCH part and the separator; for a
    one-line edit also its edit_head, so the answer is the rest of its replacement line (the optimize job's
    prefill, and the edit-line SFT pairs', which must match it)."""
    return line + "\n=======\n" + (edit_head(line, keep_lhs) if one_line else "")


def edit_prompt(spec: str, view, report: dict, top: str, action: str = "full", goal="lower area*delay*power",
                max_spec=1500, brief=False, notes=()) -> list:
    """Current design (a focus.View: the whole design or a region of it) + its EDA report -> a new
    design (action full), SEARCH/REPLACE edits (diff) or either (mixed). A focus view always asks for edits.
    notes: lines shown after the report (the value ranges the testbench gave the design's registers)."""
    failing = report and report.get("status") not in (None, "pass")
    what = "Fix the design so it passes every check." if failing else \
        f"Change it to {goal} while keeping exactly the same behaviour and ports."
    if view.mode == "focus":
        a, b = view.region
        shown = (f"The design is too long to show whole ({view.total_lines} lines). Its interface:\n"
                 f"```verilog\n{view.interface}\n```\nLines {a}-{b}, on the critical path; edit only these lines:\n"
                 f"```verilog\n{view.code}\n```")
        action = "diff"
    else:
        shown = f"Current design:\n```verilog\n{view.code.strip()}\n```"
    how = {"full": f"Answer with the complete new module `{top}` in one ```verilog block.",
           "diff": DIFF_HOWTO,
           "mixed": f"Either answer with the complete new module `{top}` in one ```verilog block, or with "
                    "SEARCH/REPLACE edits. " + DIFF_HOWTO}[action]
    user = (f"Module `{top}`. Specification:\n{_clip(spec, max_spec)}\n\n{shown}\n\n"
            f"EDA report:\n{report_summary(report, brief=brief)}\n\n"
            + ("Register values in simulation:\n" + "\n".join(f"- {n}" for n in notes) + "\n\n" if notes else "")
            + f"{what}\n{how}")
    system = SYSTEM if action == "full" else EDIT_SYSTEM
    return [{"role": "system", "content": system}, {"role": "user", "content": user}]


def repair_prompt(prompt: list, answer: str, error: str, closest: str) -> list:
    """A failed edit back to the model once: its answer, the error and the design's closest lines."""
    near = f"\nThe closest lines in the design are:\n```verilog\n{closest}\n```" if closest else ""
    return prompt + [{"role": "assistant", "content": answer},
                     {"role": "user", "content": f"That edit does not apply: {error}.{near}\nAnswer again with "
                      "SEARCH/REPLACE blocks whose SEARCH lines are copied exactly from the design."}]


def optimize_prompt(spec: str, code: str, report: dict, top: str, goal="lower area*delay*power",
                    max_spec=1500, max_code=4000) -> list:
    """Current design + its EDA report -> an improved (or fixed) design."""
    failing = report and report.get("status") not in (None, "pass")
    ask = ("Fix the design so it passes every check." if failing else
           f"Rewrite it to {goal} while keeping exactly the same behaviour and ports.")
    user = (f"Module `{top}`. Specification:\n{_clip(spec, max_spec)}\n\n"
            f"Current design:\n```verilog\n{_clip(code, max_code)}\n```\n\n"
            f"EDA report:\n{report_summary(report)}\n\n{ask}")
    return [{"role": "system", "content": SYSTEM}, {"role": "user", "content": user}]


SHOW_LINES = 30      # a transform prompt shows the design whole up to this many lines, else its interface


def transform_prompt(spec: str, view, report: dict, top: str, labels, max_spec=600) -> list:
    """The menu of verified transformations of the current design (rtl_agent.transforms): the model answers
    with one of them, word for word; the answer is scored by its own probability (policy.choose)."""
    menu = "\n".join(f"- {lab}" for lab in labels)
    code = view.code.strip()
    if view.mode != "focus" and len(code.splitlines()) <= SHOW_LINES:
        shown = f"Current design:\n```verilog\n{code}\n```"
    else:                  # the update scores every option against this prompt: keep it short
        from .rtl import parent_header
        head = view.interface or parent_header(view.code, top) or f"module {top}"
        shown = f"Current design (interface; {view.total_lines} lines):\n```verilog\n{head}\n```"
    user = (f"Module `{top}`. Specification:\n{_clip(spec, max_spec)}\n\n{shown}\n\n"
            f"EDA report:\n{report_summary(report, brief=True)}\n\n"
            "Each transformation below rewrites the design; its result is proven equivalent and synthesized. "
            f"Choose the one that lowers area*delay*power the most:\n{menu}\n"
            "Answer with the chosen line only, after `Transformation: `.")
    return [{"role": "system", "content": EDIT_SYSTEM}, {"role": "user", "content": user}]


TRANSFORM_PREFILL = "Transformation: "
