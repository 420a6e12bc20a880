"""Where rtl-agent finds data outside the repo (shared benchmarks, PDKs, cache)."""
import os
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent


class MissingData(FileNotFoundError):
    """A required data file or folder is absent; the message says where we looked."""


def shared_root() -> Path | None:
    """`RTL_AGENT_SHARED`, then `../shared` beside the repo, then `../shared` from the cwd."""
    env = os.environ.get("RTL_AGENT_SHARED")
    cands = [Path(env)] if env else []
    cands += [REPO.parent / "shared", Path.cwd().parent / "shared"]
    for c in cands:
        if c.is_dir():
            return c
    return None


def require_shared(rel: str, env_hint: str = "RTL_AGENT_SHARED") -> Path:
    root = shared_root()
    looked = [os.environ.get("RTL_AGENT_SHARED") or "(RTL_AGENT_SHARED unset)",
              str(REPO.parent / "shared")]
    if root is not None and (root / rel).exists():
        return root / rel
    where = ", ".join(str(Path(p) / rel) if not p.startswith("(") else p for p in looked)
    raise MissingData(f"missing data '{rel}': looked in {where}; set {env_hint} to the folder that holds it")


def data_folder(path, rel: str, what: str) -> Path:
    """A data set's folder: `path` when given (it must exist), else `rel` under the shared data."""
    if path is None:
        return require_shared(rel)
    p = Path(path)
    if not p.is_dir():
        raise MissingData(f"{what} folder {p} does not exist")
    return p


def cache_dir() -> Path:
    d = Path(os.environ.get("RTL_AGENT_CACHE") or
             Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache")) / "rtl-agent")
    d.mkdir(parents=True, exist_ok=True)
    return d
