"""Action kinds of the optimize sampler: one class per kind, one module per kind, and the registry below.

Every kind has the same small interface (kinds/base.py): `available(kit, code)` (has it anything to offer on
this design), `group(kit, state, sid, seed, n)` (the prompt and how its n answers are drawn for one parent) and
`extract(kit, text, group, attempt)` (the candidate in an answer). `kit` is the run's Toolkit (kinds/toolkit.py):
the prompt view, the prefill, the stop, the edit group and the few facts of the run a kind may use; a kind never
sees the environment itself. Adding a kind is a module here with one ActionKind subclass and its name in MODULES
(or, from outside the package, one `register(Kind)` call).
"""
from __future__ import annotations

import importlib

from .base import ActionKind

# the registry: the built-in kinds' modules, in menu order (--actions auto, --help, the bandit's kinds)
MODULES = ("transform", "spec", "rewrite", "diff", "decl", "narrow", "line")

_REGISTRY: dict = {}


def registry() -> dict:
    """{name: ActionKind instance}, in menu order."""
    if not _REGISTRY:
        for m in MODULES:
            _add(_kind_in(importlib.import_module(f"{__name__}.{m}")))
    return _REGISTRY


def register(kind) -> ActionKind:
    """Add a kind (an ActionKind subclass or instance) after the registered ones; its name must be new."""
    registry()
    return _add(kind)


def unregister(name: str):
    """Take a kind added by register() off the menu again (tests)."""
    registry().pop(name, None)


def get(name: str) -> ActionKind:
    return registry()[name]


def names(auto_only: bool = False) -> tuple:
    """The kinds' names in menu order; with auto_only, those `--actions auto` mixes."""
    return tuple(k for k, v in registry().items() if v.auto or not auto_only)


def parse_kinds(text: str) -> tuple[str, ...]:
    """'auto' -> the auto kinds; 'rewrite,diff' -> those; unknown names, or none, are an error."""
    if text in ("auto", "all"):
        return names(True)
    kinds = tuple(k.strip() for k in text.split(",") if k.strip())
    known = names()
    bad = [k for k in kinds if k not in known]
    if bad or not kinds:
        raise ValueError(f"unknown action kind(s) {bad or text!r}: choose from {', '.join(known)} or auto")
    return kinds


def _add(kind) -> ActionKind:
    kind = kind() if isinstance(kind, type) else kind
    if not isinstance(kind, ActionKind) or not kind.name:
        raise TypeError(f"an action kind is a named ActionKind, got {kind!r}")
    if kind.name in _REGISTRY:
        raise ValueError(f"action kind {kind.name!r} is registered already")
    _REGISTRY[kind.name] = kind
    return kind


def _kind_in(module) -> type:
    """The one ActionKind subclass a kind module defines (imported helpers of other kinds do not count)."""
    found = [c for c in vars(module).values()
             if isinstance(c, type) and issubclass(c, ActionKind) and c.__module__ == module.__name__ and c.name]
    if len(found) != 1:
        raise TypeError(f"{module.__name__} defines {len(found)} named action kinds, not one")
    return found[0]
