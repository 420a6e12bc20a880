"""Action kinds of the optimize sampler: one class per kind, one module per kind, found here by name.

Every kind has the same small interface (kinds/base.py): `available(env, code)` (has it anything to offer on
this design), `group(env, state, sid, seed, n)` (the prompt and how its n answers are drawn for one parent) and
`extract(env, text, group, attempt)` (the candidate in an answer). Adding a kind is adding a module here with a
class that sets `name` and `order`; nothing else changes.
"""
from __future__ import annotations

import importlib
import pkgutil

from .base import ActionKind

_REGISTRY: dict = {}


def registry() -> dict:
    """{name: ActionKind instance}, in menu order."""
    if not _REGISTRY:
        for m in pkgutil.iter_modules(__path__):
            if m.name != "base":
                importlib.import_module(f"{__name__}.{m.name}")
        found = sorted((c() for c in _subclasses(ActionKind) if c.name), key=lambda k: k.order)
        _REGISTRY.update({k.name: k for k in found})
    return _REGISTRY


def _subclasses(cls):
    for c in cls.__subclasses__():
        yield c
        yield from _subclasses(c)


def get(name: str) -> ActionKind:
    return registry()[name]
