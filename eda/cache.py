"""Content-addressed store of evaluation reports: one JSON file per key, written atomically,
so parallel workers share it safely and a hit costs a file read."""
import hashlib
import json
from pathlib import Path

from .config import cache_dir
from .fsutil import atomic_write

FLOW_VERSION = "2"   # bump when a stage's semantics change: old entries stop matching
# 2: one clock rule (eda.hdl.detect_clock) for STA and equivalence: hclk, pclk, sclk, ... clock STA now


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
