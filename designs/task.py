"""The task format: what a candidate must implement, how it is checked, and where
the reference lives, and the loader of project tasks (folders `designs/<name>/task.yaml`).
Other task sources (`designs.rtllm`) build Tasks with the readers here; `load_task` and
`load_suite` (in `designs`, which imports this module and never the other way) pick the source.

    t = load_project_task(DESIGNS / "adder16")
    t.reference_sources(); t.testbench_sources()
"""
import re
from dataclasses import dataclass, field
from pathlib import Path

import yaml

from eda.config import MissingData, require_shared
from eda.flow import FlowJob
from eda.hdl import detect_clock_reset, find_top, module_names
from eda.observe import Observe, ObserveError, check as check_observe, parse as parse_observe
from eda.pdk import DEFAULT_PDK, PDKS
from eda.ports import Port, PortError, parse_ports_ex
from eda.verdict import VerdictError, get_rule, is_cocotb_tb

DESIGNS = Path(__file__).resolve().parent


class TaskError(ValueError):
    """A task definition is wrong; the message names the file and field."""


@dataclass
class Task:
    name: str
    top: str                                  # module the candidate defines (what the testbench instantiates)
    spec: str
    ports: list[Port]
    root: Path
    reference: list[Path]
    testbenches: list[Path]
    ref_top: str = ""                         # module name inside the reference
    tb_top: str = ""                          # testbench top module
    clock: str | None = None
    reset: str | None = None
    reset_active_low: bool = False
    period_ns: float = 10.0
    pdk: str = DEFAULT_PDK
    category: str = ""
    tags: list[str] = field(default_factory=list)
    source: str = "project"                   # project | rtllm | ...
    notes: list[str] = field(default_factory=list)
    data_files: list[Path] = field(default_factory=list)   # files the testbench reads ($readmemh)
    golden_prefix: str | None = None          # testbench compares against a renamed copy of the reference
    verdict: str | dict | None = None         # sim verdict rule (eda.verdict): preset name or regexes; None: detect
    sim_flags: dict = field(default_factory=dict)   # extra compile flags per simulator ({"icarus": [...]})
    observe: Observe | None = None            # equivalence modulo the spec's don't-cares (eda.observe); None: strict
    design: dict = field(default_factory=dict)   # how the reference is read: include_dirs, defines, params

    @property
    def sequential(self) -> bool:
        return self.clock is not None

    def flow_job(self, pdk: str | None = None, equiv: bool = True, **changes):
        """The eda.flow.FlowJob that judges a candidate for this task: its testbench with its verdict rule
        and compile flags, the reference (equiv=True: interface + equivalence, modulo the task's
        don't-cares), its clock, reset and period, and its PDK (or `pdk`). Every job builds its
        evaluations here (then eda.flow.calibrate picks the simulator the reference passes with).
        `changes`: other FlowJob fields (stages, limits, cache, ...)."""
        return FlowJob(top=self.top, tb=self.testbench_sources(), tb_top=self.tb_top or None,
                       verdict=self.verdict, sim_flags=self.sim_flags,
                       ref=self.reference_sources() if equiv else {}, clock=self.clock or "auto",
                       reset=self.reset, period=self.period_ns,
                       observe=self.observe if equiv else None, pdk=pdk or self.pdk, **changes)

    def reference_sources(self) -> dict[str, str]:
        """filename -> text of the reference, its top renamed to `top` when they differ."""
        out = {}
        texts = _gathered(self.reference, self.design, self.ref_top or self.top) if self.design else {}
        # a reference the tools cannot read comes back lowered into one module (eda.sv_lower): that is the reference
        lowered = bool(texts) and not any(p.name in texts for p in self.reference)
        for p in [Path(n) for n in texts] if lowered else self.reference:
            text = texts.pop(p.name, None) or read_source(p)
            if self.ref_top and self.ref_top != self.top:
                text = re.sub(rf"(?<![\w$]){re.escape(self.ref_top)}(?![\w$])", self.top, text)
            out[p.name] = text
        return {**texts, **out}         # the -D file first, included headers after the sources

    def testbench_sources(self) -> dict[str, str]:
        """Every file the simulation needs besides the candidate's RTL: testbenches, data
        files, and (golden_prefix) a copy of the reference with every module renamed."""
        out = {p.name: read_source(p) for p in self.testbenches}
        for p in self.data_files:
            out[p.name] = read_source(p)
        if self.golden_prefix:
            texts = {p.name: read_source(p) for p in self.reference}
            mods = {m for t in texts.values() for m in module_names(t)}
            pat = re.compile(r"(?<![\w$])(" + "|".join(sorted(map(re.escape, mods), key=len, reverse=True)) + r")(?![\w$])")
            for name, t in texts.items():
                out[self.golden_prefix + name] = pat.sub(lambda m: self.golden_prefix + m.group(1), t)
        return out

    def to_dict(self) -> dict:
        return {"name": self.name, "top": self.top, "ref_top": self.ref_top, "tb_top": self.tb_top,
                "source": self.source, "category": self.category, "tags": list(self.tags),
                "clock": self.clock, "reset": self.reset, "reset_active_low": self.reset_active_low,
                "period_ns": self.period_ns, "pdk": self.pdk, "sequential": self.sequential,
                "ports": [p.to_dict() for p in self.ports], "root": str(self.root),
                "reference": [str(p) for p in self.reference], "testbenches": [str(p) for p in self.testbenches],
                "data_files": [str(p) for p in self.data_files], "golden_prefix": self.golden_prefix,
                "verdict": self.verdict, "sim_flags": dict(self.sim_flags),
                "observe": self.observe.to_dict() if self.observe else None, "design": dict(self.design),
                "notes": list(self.notes), "spec": self.spec}


def _gathered(reference, design: dict, top: str) -> dict:
    """The reference read as eda.design_inputs reads a design: defines, include folders, top parameters."""
    from eda.design_inputs import DesignInputError, gather
    try:
        return gather(reference, incdirs=design.get("include_dirs") or (), defines=design.get("defines") or {},
                      params={k: str(v) for k, v in (design.get("params") or {}).items()}, top=top)
    except DesignInputError as e:
        raise TaskError(f"task reference: {e}") from None


def read_source(p: Path) -> str:
    """A task file as text (undecodable bytes replaced); MissingData when it is gone."""
    try:
        return p.read_bytes().decode("utf-8", "replace")
    except FileNotFoundError:
        raise MissingData(f"missing file {p}") from None


def tb_top_of(tb_texts: dict[str, str]) -> tuple[str, list[tuple[str, str, str]]]:
    """(testbench top module, instances of modules the testbench does not define); see eda.hdl.find_top."""
    top, external = find_top(tb_texts)
    if top is None:
        raise TaskError(f"no testbench top module in {', '.join(tb_texts)}")
    return top, external


def top_of(texts: dict[str, str]) -> str:
    """The module of `texts` that no other module there instantiates (first one if several)."""
    top = find_top(texts)[0]
    if top is None:
        raise TaskError(f"no top module found in {', '.join(texts)}")
    return top


# ---- project tasks (task.yaml) -----------------------------------------------

_REQUIRED = ("name", "top", "spec", "ports", "reference")
# testbench: optional; without one, candidates are judged by equivalence to the reference alone.
# include_dirs, defines ({NAME: VALUE}), params ({NAME: VALUE}, the top's): how the reference is read
# (eda.design_inputs)
_DESIGN_KEYS = ("include_dirs", "defines", "params")
_KNOWN = set(_REQUIRED) | {"testbench", "clock", "reset", "reset_active_low", "period_ns", "pdk", "category", "tags",
                           "golden_prefix", "notes", "data_files", "verdict", "observe", *_DESIGN_KEYS}


def _resolve(root: Path, rel: str, yml: Path, fld: str) -> Path:
    """A file named in task.yaml: relative to the task folder, or `shared:<rel>` in the shared data."""
    if not isinstance(rel, str) or not rel.strip():
        raise TaskError(f"{yml}: field '{fld}': expected a file name, got {rel!r}")
    if rel.startswith("shared:"):
        return require_shared(rel[len("shared:"):])
    p = (root / rel).resolve()
    if not p.is_file():
        raise TaskError(f"{yml}: field '{fld}': file {p} does not exist")
    return p


def _files(root, val, yml, fld) -> list[Path]:
    vals = [val] if isinstance(val, str) else val
    if not isinstance(vals, list) or not vals:
        raise TaskError(f"{yml}: field '{fld}': expected a file name or a non-empty list of them")
    return [_resolve(root, v, yml, fld) for v in vals]


def _ports(val, yml) -> list[Port]:
    if not isinstance(val, list) or not val:
        raise TaskError(f"{yml}: field 'ports': expected a non-empty list of {{name, dir, width}}")
    out = []
    for i, p in enumerate(val):
        where = f"{yml}: field 'ports[{i}]'"
        if not isinstance(p, dict) or "name" not in p:
            raise TaskError(f"{where}: expected a mapping with name, dir, width; got {p!r}")
        d = p.get("dir", p.get("direction"))
        if d not in ("input", "output", "inout"):
            raise TaskError(f"{where} ({p['name']}): dir must be input, output or inout, got {d!r}")
        w = p.get("width", 1)
        if not isinstance(w, int) or isinstance(w, bool) or w < 1:
            raise TaskError(f"{where} ({p['name']}): width must be a positive integer, got {w!r}")
        out.append(Port(str(p["name"]), d, w, bool(p.get("signed", False))))
    names = [p.name for p in out]
    dup = {n for n in names if names.count(n) > 1}
    if dup:
        raise TaskError(f"{yml}: field 'ports': duplicate port names {sorted(dup)}")
    return out


def check_ports(declared: list[Port], parsed: list[Port], where: str) -> None:
    """Raise TaskError listing every difference between declared and parsed ports."""
    d = {p.name: p for p in declared}
    r = {p.name: p for p in parsed}
    errs = [f"port '{n}' is declared but not in the reference" for n in d if n not in r]
    errs += [f"reference port '{n}' ({r[n].direction} [{r[n].width}]) is not declared" for n in r if n not in d]
    for n in d.keys() & r.keys():
        if (d[n].direction, d[n].width) != (r[n].direction, r[n].width):
            errs.append(f"port '{n}': declared {d[n].direction} width {d[n].width}, "
                        f"reference has {r[n].direction} width {r[n].width}")
    if errs:
        raise TaskError(f"{where}: field 'ports' does not match the reference: " + "; ".join(errs))


def load_project_task(folder: Path) -> Task:
    folder = Path(folder).resolve()
    yml = folder / "task.yaml"
    if not yml.is_file():
        raise TaskError(f"{folder}: no task.yaml")
    try:
        cfg = yaml.safe_load(yml.read_text())
    except yaml.YAMLError as e:
        raise TaskError(f"{yml}: not valid YAML: {e}") from None
    if not isinstance(cfg, dict):
        raise TaskError(f"{yml}: expected a mapping of fields at the top level")
    for k in _REQUIRED:
        if k not in cfg or cfg[k] in (None, "", []):
            raise TaskError(f"{yml}: missing required field '{k}'")
    unknown = set(cfg) - _KNOWN
    if unknown:
        raise TaskError(f"{yml}: unknown field(s) {sorted(unknown)}; known: {sorted(_KNOWN)}")
    for k in ("name", "top"):
        if not isinstance(cfg[k], str) or not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", cfg[k]):
            raise TaskError(f"{yml}: field '{k}': must be a Verilog identifier, got {cfg[k]!r}")
    spec = _resolve(folder, cfg["spec"], yml, "spec")
    ports = _ports(cfg["ports"], yml)
    reference = _files(folder, cfg["reference"], yml, "reference")
    tbs = _files(folder, cfg["testbench"], yml, "testbench") if cfg.get("testbench") else []
    design = _design(folder, cfg, yml)
    data = _files(folder, cfg["data_files"], yml, "data_files") if cfg.get("data_files") else []
    pdk = cfg.get("pdk", DEFAULT_PDK)
    if pdk not in PDKS:
        raise TaskError(f"{yml}: field 'pdk': unknown pdk {pdk!r}; known: {', '.join(PDKS)}")
    period = cfg.get("period_ns", 10.0)
    if not isinstance(period, (int, float)) or isinstance(period, bool) or period <= 0:
        raise TaskError(f"{yml}: field 'period_ns': must be a positive number, got {period!r}")
    tags = cfg.get("tags") or []
    if not isinstance(tags, list):
        raise TaskError(f"{yml}: field 'tags': expected a list")
    rst_low = cfg.get("reset_active_low", False)
    if not isinstance(rst_low, bool):
        raise TaskError(f"{yml}: field 'reset_active_low': expected true or false, got {rst_low!r}")
    for k in ("clock", "reset"):
        v = cfg.get(k)
        if v is not None:
            p = next((p for p in ports if p.name == v), None)
            if p is None or p.direction != "input" or p.width != 1:
                raise TaskError(f"{yml}: field '{k}': {v!r} is not a 1-bit input port")
    verdict = cfg.get("verdict")
    try:
        get_rule(verdict)
    except VerdictError as e:
        raise TaskError(f"{yml}: field {e}") from None
    try:
        observe = parse_observe(cfg.get("observe"), f"{yml}: field 'observe'")
    except ObserveError as e:
        raise TaskError(str(e)) from None
    task = Task(name=cfg["name"], top=cfg["top"], spec=spec.read_text(), ports=ports, root=folder,
                reference=reference, testbenches=tbs, clock=cfg.get("clock"), reset=cfg.get("reset"),
                reset_active_low=rst_low, period_ns=float(period), pdk=pdk,
                category=str(cfg.get("category", "")), tags=[str(t) for t in tags], source="project",
                notes=[str(n) for n in cfg.get("notes") or []], data_files=data,
                golden_prefix=cfg.get("golden_prefix"), verdict=verdict, observe=observe, design=design)
    ref_texts = {p.name: read_source(p) for p in reference}
    task.ref_top = task.top if any(task.top in module_names(t) for t in ref_texts.values()) else top_of(ref_texts)
    if not tbs:
        task.tb_top, duts = "", [(None, task.top, "dut")]         # judged by equivalence alone
    elif is_cocotb_tb({p.name: "" for p in tbs}):
        task.tb_top, duts = task.top, [(None, task.top, "dut")]    # cocotb: the design is the toplevel
    else:
        task.tb_top, duts = tb_top_of({p.name: read_source(p) for p in tbs})
    if task.top not in {d[1] for d in duts}:
        raise TaskError(f"{yml}: field 'top': the testbench does not instantiate '{task.top}' "
                        f"(it instantiates {sorted({d[1] for d in duts}) or 'nothing'})")
    try:
        parsed, note = parse_ports_ex(task.reference_sources(), task.top)
    except PortError as e:
        raise TaskError(f"{yml}: field 'reference': {e}") from None
    if note:
        task.notes.append(f"reference: {note}")
    check_ports(ports, parsed, str(yml))
    task.ports = parsed         # same set as declared, in the RTL's order
    if observe:
        try:
            check_observe(observe, parsed, f"{yml}: field 'observe'")
        except ObserveError as e:
            raise TaskError(str(e)) from None
    return task


def _design(folder: Path, cfg: dict, yml: Path) -> dict:
    out = {}
    for k in _DESIGN_KEYS:
        v = cfg.get(k)
        if v in (None, [], {}):
            continue
        if k == "include_dirs":
            vals = [v] if isinstance(v, str) else v
            if not isinstance(vals, list) or not all(isinstance(d, str) and (folder / d).is_dir() for d in vals):
                raise TaskError(f"{yml}: field 'include_dirs': expected folders (relative to the task), got {v!r}")
            out[k] = [str((folder / d).resolve()) for d in vals]
        elif not isinstance(v, dict) or not all(re.fullmatch(r"[A-Za-z_]\w*", str(n)) for n in v):
            raise TaskError(f"{yml}: field '{k}': expected a mapping NAME: VALUE, got {v!r}")
        else:
            out[k] = {str(n): str(x) for n, x in v.items()}
    return out


# ---- the project suite ------------------------------------------------------------

def project_folders() -> list[Path]:
    return sorted(p.parent for p in DESIGNS.glob("*/task.yaml"))


def load_project_named(name: str) -> Task:
    """The project task designs/<name>; KeyError when there is none."""
    if (DESIGNS / name / "task.yaml").is_file():
        return load_project_task(DESIGNS / name)
    raise KeyError(name)


def load_project_suite(folder=None, skip_missing: bool = False) -> list[Task]:
    """Every task.yaml folder directly under `folder` (default: the project's designs/).
    skip_missing: leave out tasks whose shared data is absent instead of raising MissingData."""
    folders = project_folders() if folder is None else sorted(f.parent for f in Path(folder).glob("*/task.yaml"))
    out = []
    for f in folders:
        try:
            out.append(load_project_task(f))
        except MissingData:
            if not skip_missing:
                raise
    return out


def read_interface(task: Task) -> Task:
    """Ports, clock and reset of a suite task from its reference RTL (a seq/comb tag too). A reference
    whose ports cannot be read keeps the task (the suite stays whole) with a note a regression reports."""
    try:
        task.ports, note = parse_ports_ex(task.reference_sources(), task.top)
    except PortError as e:
        task.ports, note = [], f"ports unknown: {e}"
    if note:
        task.notes.append(f"reference: {note}")
    code = "\n".join(task.reference_sources().values())
    task.clock, task.reset, task.reset_active_low = detect_clock_reset(task.ports, code)
    task.tags.append("seq" if task.clock else "comb")
    return task
