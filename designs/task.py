"""The task format: what a candidate must implement, how it is checked, and where
the reference lives.  Project tasks are folders `designs/<name>/task.yaml`; RTLLM
tasks come from `designs.rtllm`.

    t = load_task("adder16")              # or a folder, or an RTLLM design name
    suite = load_suite("rtllm")           # or "designs", or a folder
    t.reference_sources(); t.testbench_sources()
"""
import re
from dataclasses import dataclass, field
from pathlib import Path

import yaml

from eda.config import MissingData, require_shared
from eda.ports import Port, PortError, detect_clock_reset, instantiations, parse_ports_ex  # noqa: F401  (Port re-exported)
from eda.sandbox import module_names

DESIGNS = Path(__file__).resolve().parent
PDKS = ("nangate45", "sky130hd")


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
    pdk: str = "nangate45"
    category: str = ""
    tags: list[str] = field(default_factory=list)
    source: str = "project"                   # project | rtllm | ...
    notes: list[str] = field(default_factory=list)
    data_files: list[Path] = field(default_factory=list)   # files the testbench reads ($readmemh)
    golden_prefix: str | None = None          # testbench compares against a renamed copy of the reference

    @property
    def sequential(self) -> bool:
        return self.clock is not None

    def reference_sources(self) -> dict[str, str]:
        """filename -> text of the reference, its top renamed to `top` when they differ."""
        out = {}
        for p in self.reference:
            text = _read(p)
            if self.ref_top and self.ref_top != self.top:
                text = re.sub(rf"(?<![\w$]){re.escape(self.ref_top)}(?![\w$])", self.top, text)
            out[p.name] = text
        return out

    def testbench_sources(self) -> dict[str, str]:
        """Every file the simulation needs besides the candidate's RTL: testbenches, data
        files, and (golden_prefix) a copy of the reference with every module renamed."""
        out = {p.name: _read(p) for p in self.testbenches}
        for p in self.data_files:
            out[p.name] = _read(p)
        if self.golden_prefix:
            texts = {p.name: _read(p) for p in self.reference}
            mods = {m for t in texts.values() for m in module_names(t)}
            pat = re.compile(r"(?<![\w$])(" + "|".join(sorted(map(re.escape, mods), key=len, reverse=True)) + r")(?![\w$])")
            for name, t in texts.items():
                out[self.golden_prefix + name] = pat.sub(lambda m: self.golden_prefix + m.group(1), t)
        return out

    def port(self, name: str) -> Port | None:
        return next((p for p in self.ports if p.name == name), None)

    def to_dict(self) -> dict:
        return {"name": self.name, "top": self.top, "ref_top": self.ref_top, "tb_top": self.tb_top,
                "source": self.source, "category": self.category, "tags": list(self.tags),
                "clock": self.clock, "reset": self.reset, "reset_active_low": self.reset_active_low,
                "period_ns": self.period_ns, "pdk": self.pdk, "sequential": self.sequential,
                "ports": [p.to_dict() for p in self.ports], "root": str(self.root),
                "reference": [str(p) for p in self.reference], "testbenches": [str(p) for p in self.testbenches],
                "data_files": [str(p) for p in self.data_files], "golden_prefix": self.golden_prefix,
                "notes": list(self.notes), "spec": self.spec}


def _read(p: Path) -> str:
    try:
        return p.read_bytes().decode("utf-8", "replace")
    except FileNotFoundError:
        raise MissingData(f"missing file {p}") from None


def tb_top_of(tb_texts: dict[str, str]) -> tuple[str, list[tuple[str, str, str]]]:
    """(testbench top module, instances of modules the testbench does not define)."""
    defined, insts = [], []
    for t in tb_texts.values():
        defined += module_names(t)
        insts += instantiations(t)
    used = {i[1] for i in insts}
    tops = [m for m in defined if m not in used]
    if not tops:
        raise TaskError(f"no testbench top module in {', '.join(tb_texts)}")
    return tops[0], [i for i in insts if i[1] not in defined]


def top_of(texts: dict[str, str]) -> str:
    """The module of `texts` that no other module there instantiates (first one if several)."""
    defined = [m for t in texts.values() for m in module_names(t)]
    used = {i[1] for t in texts.values() for i in instantiations(t)}
    tops = [m for m in defined if m not in used]
    if not tops:
        raise TaskError(f"no top module found in {', '.join(texts)}")
    return tops[0]


# ---- project tasks (task.yaml) -----------------------------------------------

_REQUIRED = ("name", "top", "spec", "ports", "reference", "testbench")
_KNOWN = set(_REQUIRED) | {"clock", "reset", "reset_active_low", "period_ns", "pdk", "category", "tags",
                           "golden_prefix", "notes", "data_files"}


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
    tbs = _files(folder, cfg["testbench"], yml, "testbench")
    data = _files(folder, cfg["data_files"], yml, "data_files") if cfg.get("data_files") else []
    pdk = cfg.get("pdk", "nangate45")
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
    task = Task(name=cfg["name"], top=cfg["top"], spec=spec.read_text(), ports=ports, root=folder,
                reference=reference, testbenches=tbs, clock=cfg.get("clock"), reset=cfg.get("reset"),
                reset_active_low=rst_low, period_ns=float(period), pdk=pdk,
                category=str(cfg.get("category", "")), tags=[str(t) for t in tags], source="project",
                notes=[str(n) for n in cfg.get("notes") or []], data_files=data,
                golden_prefix=cfg.get("golden_prefix"))
    ref_texts = {p.name: _read(p) for p in reference}
    task.ref_top = task.top if any(task.top in module_names(t) for t in ref_texts.values()) else top_of(ref_texts)
    task.tb_top, duts = tb_top_of({p.name: _read(p) for p in tbs})
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
    return task


# ---- entry points -------------------------------------------------------------

def project_folders() -> list[Path]:
    return sorted(p.parent for p in DESIGNS.glob("*/task.yaml"))


def load_task(path_or_name) -> Task:
    """A project task by name or folder, an RTLLM design folder, or an RTLLM design name."""
    from . import rtllm
    s = str(path_or_name)
    p = Path(s)
    if p.is_dir():
        if (p / "task.yaml").is_file():
            return load_project_task(p)
        if (p / "design_description.txt").is_file():
            return rtllm.load_design(p)
        raise TaskError(f"{p}: neither a project task (task.yaml) nor an RTLLM design (design_description.txt)")
    if (DESIGNS / s / "task.yaml").is_file():
        return load_project_task(DESIGNS / s)
    if "/" in s or s.endswith((".yaml", ".yml")):
        if p.is_file() and p.name == "task.yaml":
            return load_project_task(p.parent)
        raise TaskError(f"no task at {s}")
    try:
        return rtllm.load_design_by_name(s)
    except KeyError:
        known = [f.name for f in project_folders()]
        raise TaskError(f"unknown task {s!r}: not a folder, not a project task ({', '.join(known)}), "
                        f"not an RTLLM design") from None


def load_suite(which, skip_missing: bool = False) -> list[Task]:
    """"rtllm", "designs" (project tasks), or a folder of either kind.
    skip_missing: leave out tasks whose shared data is absent instead of raising MissingData."""
    from . import rtllm
    s = str(which)
    if s == "rtllm":
        return rtllm.load_suite()
    if s == "designs":
        out = []
        for f in project_folders():
            try:
                out.append(load_project_task(f))
            except MissingData:
                if not skip_missing:
                    raise
        return out
    p = Path(s)
    if not p.is_dir():
        raise MissingData(f"suite {s!r}: not 'rtllm', 'designs', or an existing folder")
    if (p / "task.yaml").is_file() or (p / "design_description.txt").is_file():
        return [load_task(p)]
    if any(p.glob("*/task.yaml")):
        return [load_project_task(f.parent) for f in sorted(p.glob("*/task.yaml"))]
    if any(p.glob("**/design_description.txt")):
        return rtllm.load_suite(p)
    raise TaskError(f"{p}: holds no task.yaml folders and no RTLLM designs")
