"""An end-of-run check kept in one JSON file of the run folder (cross_pdk.json, strong_synth.json), under a key
of what it depends on (the design's code, the PDK, ...): a resumed or re-reported run reads it, never redoes it.

    got = kept(out / "strong_synth.json", key_of(job.pdk, code), lambda: check(...))
"""
from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Callable

from eda.fsutil import atomic_write


def key_of(*parts) -> str:
    return hashlib.sha256("\n".join(map(str, parts)).encode()).hexdigest()[:16]


def kept(f: Path, key: str, compute: Callable[[], dict]) -> dict:
    """The file's result when its key is `key`; else compute(), written there with the key."""
    try:
        got = json.loads(f.read_text())
        if isinstance(got, dict) and got.get("key") == key:
            return got
    except (OSError, ValueError):
        pass
    got = {"key": key, **compute()}
    atomic_write(f, json.dumps(got, indent=2))
    return got
