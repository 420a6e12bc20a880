"""A task made from a design a team already has: its sources (with eda.design_inputs' options), no task folder.

The given design is the reference; ports come from the parse of the top, the clock and reset from the one
detector every stage uses (eda.hdl) or from the caller. Without a testbench of its own, a candidate is judged by
equivalence to the reference, after a fast screen: a generated testbench (eda.random_stim.compare_testbench) that
runs it beside a renamed copy of the reference on constrained-random inputs and compares every output.
`write_task` writes it as an ordinary task folder (task.yaml, spec.md, tb_compare.v, the sources specialised:
top parameters written in, defines as a first file, headers beside them), which `load_task` reads back,
`rtl-agent task init` leaves for the user to edit, and `optimize`/`cover`/`regress` write to runs/tasks/<top>
(so a resumed run reads the same task).
"""
import re
from pathlib import Path

import yaml

from eda.design_inputs import DesignInputError, check_top
from eda.hdl import detect_clock_reset, strip_comments
from eda.pdk import DEFAULT_PDK
from eda.ports import PortError, parse_ports_ex
from eda.random_stim import compare_testbench

GOLDEN = "ref_"             # the reference's modules, renamed, in the generated testbench
_EDGE_RE = re.compile(r"@\s*\(\s*(?:posedge|negedge)\s+([A-Za-z_]\w*)")


def interface(texts: dict, top: str, clock: str | None = None, reset: str | None = None):
    """(ports, clock, reset, reset_active_low) of `top`; a sequential design whose clock cannot be told asks
    for --clock."""
    try:
        ports, _ = parse_ports_ex(texts, top)
    except PortError as e:
        raise DesignInputError(f"--top {top}: ports cannot be read: {e}") from None
    names = {p.name: p for p in ports}
    for opt, v in (("--clock", clock), ("--reset", reset)):
        if v and (v not in names or names[v].direction != "input" or names[v].width != 1):
            raise DesignInputError(f"{opt} {v}: not a 1-bit input of {top} (inputs: "
                                   f"{', '.join(p.name for p in ports if p.direction == 'input')})")
    code = "\n".join(strip_comments(t) for t in texts.values() if isinstance(t, str))
    c, r, low = detect_clock_reset(ports, code)
    clock, reset = clock or c, reset or r
    if reset and reset != r:
        low = bool(re.search(r"(^n|_n$|_ni$|_b$|n$)", reset))
    edges = {m for m in _EDGE_RE.findall(code) if m in names}
    if clock is None and edges:
        raise DesignInputError(f"{top}: registers are clocked by {', '.join(sorted(edges))} but no input looks like "
                               "a clock: name it with --clock")
    return ports, clock, reset, low


def write_task(texts: dict, top: str | None, out: Path, clock: str | None = None, reset: str | None = None,
               pdk: str = DEFAULT_PDK, origin: str = "") -> Path:
    """Write the task folder for the design `texts` (name -> text, from eda.design_inputs.gather) into `out`."""
    top = check_top(texts, top)
    ports, clock, reset, low = interface(texts, top, clock, reset)
    out = Path(out)
    (out / "rtl").mkdir(parents=True, exist_ok=True)
    names = []
    for name, text in texts.items():
        p = out / "rtl" / Path(name).name
        p.write_text(text if isinstance(text, str) else text.decode("utf-8", "replace"))
        names.append(f"rtl/{p.name}")
    plist = "\n".join(f"- `{p.name}`: {p.direction} [{p.width}]" for p in ports)
    (out / "spec.md").write_text(
        f"# {top}\n\nAn existing design{(' (' + origin + ')') if origin else ''}: implement module `{top}` with "
        f"the same ports and the same behaviour, cycle for cycle, as the reference in rtl/ (a candidate counts only "
        f"when it is proven equivalent to it), with smaller area x delay x power.\n\nPorts:\n{plist}\n"
        + (f"\nClock `{clock}`" + (f", reset `{reset}` (active {'low' if low else 'high'})" if reset else "")
           + ".\n" if clock else "\nCombinational.\n"))
    cfg = {"name": top, "top": top, "spec": "spec.md", "reference": names,
           "ports": [{"name": p.name, "dir": p.direction, "width": p.width} for p in ports], "pdk": pdk,
           "category": "existing design", "notes": [f"made from {origin}" if origin else "made from a design"]}
    if clock:
        cfg["clock"] = clock
    if reset:
        cfg.update(reset=reset, reset_active_low=low)
    if not any(p.direction == "inout" for p in ports):
        # a fast screen before the proof: candidate and reference on the same random inputs, outputs compared
        (out / "tb_compare.v").write_text(compare_testbench(ports, top, GOLDEN + top, clock, reset, low))
        cfg.update(testbench="tb_compare.v", golden_prefix=GOLDEN, verdict="rtllm")
    (out / "task.yaml").write_text("# made by rtl-agent from an existing design: candidates are judged by equivalence "
                                   "to rtl/, after tb_compare.v (random inputs, outputs compared with rtl/'s)\n"
                                   + yaml.safe_dump(cfg, sort_keys=False))
    return out


def is_design_arg(arg) -> bool:
    """A command's TASK argument that names a design file instead of a task."""
    return isinstance(arg, str) and arg.endswith((".v", ".sv")) and Path(arg).is_file()
