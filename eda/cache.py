"""Content-addressed store of evaluation reports: one JSON file per key, written atomically,
so parallel workers share it safely and a hit costs a file read."""
import functools
import hashlib
import json
from pathlib import Path

from .config import cache_dir
from .fsutil import atomic_write

FLOW_VERSION = "2"   # the flow's name for itself in reports; cache keys use code_version() instead
EDA_DIR = Path(__file__).resolve().parent
# What decides a verdict, a PPA number or a diagnostic: every source and package-data file of `eda`
# (stages, tool adapters, equivalence strategies, verdict rules, Yosys/STA scripts, latch map).
CODE_SUFFIXES = (".py", ".ys", ".tcl", ".v")


@functools.cache
def code_version(root: Path = EDA_DIR) -> str:
    """A content hash of the code that produces a report: any edit to it gives new cache keys, so an
    entry computed by an older checker is recomputed, never served (no version number to bump by hand)."""
    h = hashlib.sha256()
    for p in sorted(q for q in Path(root).rglob("*") if q.suffix in CODE_SUFFIXES and "__pycache__" not in q.parts):
        h.update(str(p.relative_to(root)).encode() + b"\0" + p.read_bytes() + b"\0")
    return h.hexdigest()[:16]


def key(payload: dict) -> str:
    blob = json.dumps(payload, sort_keys=True, default=str).encode()
    return hashlib.sha256(blob).hexdigest()


def text_hash(texts: dict) -> dict:
    return {n: hashlib.sha256(t if isinstance(t, bytes) else t.encode()).hexdigest() for n, t in sorted(texts.items())}


class Cache:
    def __init__(self, root: Path | None = None):
        self.root = Path(root) if root else cache_dir() / "eval"

    def _path(self, k: str) -> Path:
        return self.root / k[:2] / f"{k}.json"

    def get(self, k: str) -> dict | None:
        try:
            with open(self._path(k)) as f:
                return json.load(f)
        except (OSError, ValueError):
            return None  # missing or half-written by a killed run: recompute

    def put(self, k: str, value: dict):
        atomic_write(self._path(k), json.dumps(value))
