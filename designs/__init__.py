"""Tasks: what a candidate must implement, how it is checked, where the reference lives.

    from designs import load_task, load_suite
    t = load_task("adder16")              # a project task or RTLLM design, by name or folder
    suite = load_suite("rtllm")           # or "designs", "verilog-eval", or a folder of any kind
    t.reference_sources(); t.testbench_sources()

Each kind of task is a `Source` in the registry `SOURCES`: project tasks (`designs.task`,
folders `designs/<name>/task.yaml`) and RTLLM v2.0 (`designs.rtllm`). A new benchmark is one
module that builds `Task`s with the readers of `designs.task`, plus one `register_source` call
here. Imports go one way: this package imports the source modules, they import `designs.task`.
"""
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

from eda.config import MissingData

from . import rtllm, verilog_eval
from .task import Task, TaskError, load_project_named, load_project_suite, load_project_task, project_folders


@dataclass(frozen=True)
class Source:
    suite: str                                  # its name for load_suite ("designs", "rtllm")
    what: str                                   # for messages: "a project task"
    marker: str                                 # the file that makes a folder one task of this kind
    find: str                                   # glob, under a folder, for markers of a suite of them
    load_folder: Callable[[Path], Task]         # one task folder -> Task
    load_named: Callable[[str], Task]           # by name; KeyError when the source has none of that name
    load_all: Callable[..., list[Task]]         # (folder=None, skip_missing=False) -> the suite
    known: Callable[[], list[str]] | None = None   # names for an "unknown task" message, when cheap


SOURCES: dict[str, Source] = {}     # in lookup order: a name is tried on each source in turn


def register_source(src: Source) -> Source:
    SOURCES[src.suite] = src
    return src


register_source(Source("designs", "a project task", "task.yaml", "*/task.yaml", load_project_task,
                       load_project_named, load_project_suite, lambda: [f.name for f in project_folders()]))
register_source(Source("rtllm", "an RTLLM design", "design_description.txt", "**/design_description.txt",
                       rtllm.load_design, rtllm.load_design_by_name,
                       lambda folder=None, skip_missing=False: rtllm.load_suite(folder)))


def _no_folder(folder: Path) -> Task:
    raise TaskError(f"{folder}: a VerilogEval problem is a file prefix (ProbNNN_name), not a folder")


register_source(Source("verilog-eval", "a VerilogEval v2 problem", "", "Prob*_prompt.txt", _no_folder,
                       verilog_eval.load_named, verilog_eval.load_suite))


def _source_of(folder: Path) -> Source | None:
    return next((s for s in SOURCES.values() if s.marker and (folder / s.marker).is_file()), None)


def load_task(path_or_name) -> Task:
    """A task folder of any registered kind, its marker file (task.yaml), or a task name."""
    s = str(path_or_name)
    p = Path(s)
    if p.is_dir():
        src = _source_of(p)
        if src is None:
            raise TaskError(f"{p}: neither " + " nor ".join(f"{x.what} ({x.marker})" for x in SOURCES.values()))
        return src.load_folder(p)
    src = next((x for x in SOURCES.values() if x.marker and x.marker == p.name), None) if p.is_file() else None
    if src is not None:
        return src.load_folder(p.parent)
    name = s.rstrip("/")
    if "/" in name or name.endswith((".yaml", ".yml")):
        raise TaskError(f"no task at {s}")
    for src in SOURCES.values():
        try:
            return src.load_named(name)
        except KeyError:
            pass
    raise TaskError(f"unknown task {s!r}: not a folder, " + ", ".join(
        f"not {x.what}" + (f" ({', '.join(x.known())})" if x.known else "") for x in SOURCES.values()))


def load_suite(which, skip_missing: bool = False, only: str | None = None) -> list[Task]:
    """A registered suite by name ("rtllm", "designs"), or a folder: one task, or a suite of one kind.
    skip_missing: leave out tasks whose shared data is absent instead of raising MissingData.
    only: comma-separated task names to keep (ValueError names any the suite lacks)."""
    tasks = _load_suite(which, skip_missing)
    if only:
        want = {x.strip() for x in only.split(",") if x.strip()}
        unknown = want - {t.name for t in tasks}
        if unknown:
            raise ValueError(f"not in suite {which}: {', '.join(sorted(unknown))}")
        tasks = [t for t in tasks if t.name in want]
    return tasks


def _load_suite(which, skip_missing: bool) -> list[Task]:
    s = str(which)
    if s in SOURCES:
        return SOURCES[s].load_all(None, skip_missing)
    p = Path(s)
    if not p.is_dir():
        raise MissingData(f"suite {s!r}: the folder does not exist, and it is not a suite name "
                          f"({', '.join(map(repr, SOURCES))})")
    if _source_of(p):
        return [load_task(p)]
    for src in SOURCES.values():
        if any(p.glob(src.find)):
            return src.load_all(p, skip_missing)
    raise TaskError(f"{p}: holds " + " and ".join(f"no {x.what.split(' ', 1)[1]}s ({x.find})"
                                                  for x in SOURCES.values()))
