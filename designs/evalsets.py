"""The evaluation sets: what measures the agent and so must never train it.

    is_eval_path(p)     p lies inside one of them (by folder name, so a copy elsewhere counts too)
    eval_items()        {suite: {item name: text}}: RTLLM references and descriptions, VerilogEval references
                        and prompts, and the headroom rewrites (suite "headroom", present when there are any)

RTLLM v2.0 and VerilogEval v2 are read from the shared data (designs.rtllm, designs.verilog_eval). The headroom
rewrites are hand-written PPA rewrites of RTLLM designs and project tasks (HEADROOM/<design>/*.v), kept beside
the benchmark that measures them (bench/headroom.py, which takes the folder from here): this module is the one
place the product learns where they are.
"""
from pathlib import Path

from . import rtllm, verilog_eval

HDL = (".v", ".sv", ".vh", ".svh")
MARKS = ("rtllm", "verilog-eval", "verilog_eval", "verilogeval", "headroom")
HEADROOM = Path(__file__).resolve().parent.parent / "bench" / "headroom"


def is_eval_path(p) -> bool:
    return any(m in part.lower() for part in Path(p).resolve().parts for m in MARKS)


def eval_items() -> dict:
    """{suite: {item name: text}} of every evaluation set (MissingData when RTLLM or VerilogEval is absent)."""
    items = {"RTLLM": {}, "VerilogEval": {}}
    for f in rtllm.root().glob("**/*"):
        if f.is_file() and (f.suffix in HDL or f.name == "design_description.txt") and "testbench" not in f.name:
            items["RTLLM"][str(f.relative_to(rtllm.root()))] = f.read_text(errors="replace")
    for f in verilog_eval.root().glob("Prob*"):
        if f.name.endswith(("_ref.sv", "_prompt.txt")):
            items["VerilogEval"][f.name] = f.read_text(errors="replace")
    heads = {str(f.relative_to(HEADROOM)): f.read_text(errors="replace")
             for f in sorted(HEADROOM.glob("**/*")) if f.is_file() and f.suffix in HDL} if HEADROOM.is_dir() else {}
    if heads:
        items["headroom"] = heads
    return items
