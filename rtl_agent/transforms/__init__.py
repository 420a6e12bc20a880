"""The library of verified transformations: programs write the structure, the policy chooses, the prover checks.

Each kind is one module with one Transform subclass; REGISTRY below lists them. Adding a kind: a module and
one line here.

    opts = options(Design(code, top, ranges), kinds=None)   # [Option], every kind's sites
    new_code = apply(Design(code, top), opt)                 # raises TransformError
"""
from __future__ import annotations

from .base import Design, Option, Transform, TransformError
from .syntax import ParseError

REGISTRY: dict[str, Transform] = {}


def register(t: Transform) -> Transform:
    REGISTRY[t.name] = t
    return t


def unregister(name: str):
    """Drop a kind registered at run time (a plug-in, a test's toy)."""
    REGISTRY.pop(name, None)


# the kinds' modules, in menu order: a new kind is a module and its name here
KIND_MODULES = ("narrow", "cond_arith", "share", "recognise", "datapath", "mux_share", "loop_tree", "counter_toggle",
                "bound_compare", "offset_compare", "signmag_add", "fsm_encode", "retime", "idle", "mem_clear",
                "invert_reg", "resynth", "decode_delay")


def _load():
    import importlib
    for m in KIND_MODULES:
        importlib.import_module(f"{__name__}.{m}")


def kinds() -> tuple:
    _load()
    return tuple(REGISTRY)


def options(d: Design, kinds_=None, log=None) -> list[Option]:
    """Every option of the named kinds (all when None) on design d, labels made unique. A kind that fails on
    this design (the parser refuses it, an unsupported construct) gives none; `log(kind, reason)` hears why."""
    _load()
    out, seen = [], set()
    for name, t in REGISTRY.items():
        if kinds_ is not None and name not in kinds_:
            continue
        try:
            got = t.options(d)
        except (ParseError, TransformError, ValueError) as e:
            if log:
                log(name, str(e)[:200])
            continue
        except Exception as e:     # noqa: BLE001 - a kind's own bug costs its options on this design, not the run
            if log:
                log(name, f"internal error: {type(e).__name__}: {e}"[:200])
            continue
        for o in got:
            if o.label in seen:
                o.label = f"{o.label} ({o.site})"
            if o.label not in seen:
                seen.add(o.label)
                out.append(o)
    return out


def apply(d: Design, o: Option) -> str:
    _load()
    t = REGISTRY.get(o.kind)
    if t is None:
        raise TransformError(f"unknown transformation kind {o.kind!r}")
    return t.apply(d, o)


__all__ = ["Design", "Option", "Transform", "TransformError", "ParseError", "REGISTRY", "register", "unregister",
           "kinds", "options", "apply"]
