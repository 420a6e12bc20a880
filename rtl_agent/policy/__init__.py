"""LLM policy backends: transformers+peft (trainable), vLLM (fast sampling, LoRA hot-swap), OpenAI-compatible.

    pol = make_policy("default")                     # transformers on the bundled SmolLM2-135M-Instruct
    pol = make_policy("vllm:default", train=True)    # vLLM on the same model, a trainer beside it
    pol = make_policy("openai:smol@http://127.0.0.1:8000")

A spec is "<prefix>:<rest>"; the prefix names a backend in the registry and the backend's factory,
factory(rest, **opts) -> Policy, reads the rest. Built-in backends are registered by the name of
their factory ("module:function") and imported on first use, so importing this package loads no
torch, vLLM or HTTP code; another backend registers with register_backend(prefix, factory).
"""
from __future__ import annotations

import importlib
from typing import Callable

from .base import Completion, Policy, PolicyError, TrainablePolicy
from .models import default_model_dir, resolve_model

__all__ = ["Completion", "Policy", "PolicyError", "TrainablePolicy", "make_policy", "register_backend",
           "default_model_dir", "resolve_model"]

_BACKENDS: dict[str, Callable | str] = {}


def register_backend(prefix: str, factory: Callable | str) -> None:
    """make_policy("<prefix>:<rest>", **opts) calls factory(rest, **opts). A str factory,
    "package.module:function", is imported when a spec first uses it."""
    if not prefix or ":" in prefix:
        raise PolicyError(f"a backend prefix must be a non-empty name without ':', got {prefix!r}")
    _BACKENDS[prefix] = factory


def _factory(prefix: str) -> Callable:
    f = _BACKENDS[prefix]
    if isinstance(f, str):
        mod, _, attr = f.partition(":")
        f = _BACKENDS[prefix] = getattr(importlib.import_module(mod), attr)
    return f


register_backend("hf", "rtl_agent.policy.hf:from_spec")
register_backend("vllm", "rtl_agent.policy.vllm_backend:from_spec")
register_backend("openai", "rtl_agent.policy.openai_backend:from_spec")


def make_policy(spec: str = "default", **opts) -> Policy:
    """"default" | "hf:<path or id>" | "vllm:<path>" | "openai:<model>@<base_url>" | any registered prefix.

    "default" is the transformers backend on the bundled SmolLM2-135M-Instruct; "vllm:default" is
    vLLM on the same model. Options go to the backend's factory (the backend's constructor).
    """
    spec = (spec or "default").strip()
    kind, _, rest = spec.partition(":")
    if spec == "default" or spec == "hf":
        kind, rest = "hf", "default"
    if kind not in _BACKENDS:
        raise PolicyError(f"unknown policy spec {spec!r}: use default, hf:<path>, vllm:<path> or openai:<model>@<url>"
                          + "".join(f", {p}:..." for p in _BACKENDS if p not in ("hf", "vllm", "openai")))
    return _factory(kind)(rest, **opts)
