"""The files a stage keeps (eda.stages `artifacts`: pnr's routed DEF, netlist and SPEF). The stage copies them
from its work folder to the folder the job names (FlowJob.keep; default a folder of the cache); a result
served from the cache gets them copied from where that run kept them to the folder a later job names
(the folder is no part of the cache key)."""
import shutil
from pathlib import Path


def copy(src: Path, dst: Path, names):
    dst.mkdir(parents=True, exist_ok=True)
    for n in names:
        if (src / n).is_file() and (src / n).resolve() != (dst / n).resolve():
            shutil.copy(src / n, dst / n)


def present(results: list, old: Path) -> bool:
    """Every passing (Stage, StageResult)'s files are still in `old` (not a removed temporary folder)."""
    return all((old / a).is_file() for st, r in results if r.ok for a in st.artifacts)


def rekeep(results: list, old: Path, new: Path):
    """Copy each passing (Stage, StageResult)'s files from `old` to `new`; a path in its data that named
    one of them in `old` names it in `new`."""
    for st, r in results:
        if not r.ok or not st.artifacts:
            continue
        copy(old, new, st.artifacts)
        moved = {str(old / a): str(new / a) for a in st.artifacts}
        r.data = {k: moved.get(v, v) if isinstance(v, str) else v for k, v in r.data.items()}
