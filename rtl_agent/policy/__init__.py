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
from .models import BUNDLED_ADAPTERS, adapter_id, default_model_dir, resolve_model

__all__ = ["Completion", "Policy", "PolicyError", "TrainablePolicy", "make_policy", "register_backend",
           "default_model_dir", "resolve_model", "policy_adapter"]

LOCAL = ("hf", "vllm")      # backends that load the weights here: an SFT adapter can be merged into them

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


def _split(spec: str) -> tuple[str, str]:
    spec = (spec or "default").strip()
    kind, _, rest = spec.partition(":")
    return ("hf", "default") if spec in ("default", "hf") else (kind, rest)


def _check_adapter(kind: str, adapter) -> bool:
    """Whether this backend takes the adapter; an explicit adapter for a remote backend is an error."""
    if kind in LOCAL:
        return True
    if adapter not in (None, "", "none", *BUNDLED_ADAPTERS):
        raise PolicyError(f"--adapter works with local models (hf, vllm); the {kind} backend serves its own weights")
    return False


def policy_adapter(spec: str = "default", adapter="default") -> str:
    """The SFT adapter a policy spec runs with, as a run records it (models.adapter_id): "none" for
    remote backends and for models the default adapter was not made for."""
    kind, rest = _split(spec)
    return adapter_id(adapter, rest) if _check_adapter(kind, adapter) else "none"


def make_policy(spec: str = "default", adapter="default", **opts) -> Policy:
    """"default" | "hf:<path or id>" | "vllm:<path>" | "openai:<model>@<base_url>" | any registered prefix.

    "default" is the transformers backend on the bundled SmolLM2-135M-Instruct; "vllm:default" is
    vLLM on the same model. adapter: an SFT LoRA merged into a local model's weights ("default": the
    bundled Verilog adapter, for the bundled model; "none": off; or a folder). Options go to the
    backend's factory (the backend's constructor).
    """
    kind, rest = _split(spec)
    if _check_adapter(kind, adapter):
        opts.setdefault("base_adapter", adapter)
    if kind not in _BACKENDS:
        raise PolicyError(f"unknown policy spec {spec!r}: use default, hf:<path>, vllm:<path> or openai:<model>@<url>"
                          + "".join(f", {p}:..." for p in _BACKENDS if p not in ("hf", "vllm", "openai")))
    return _factory(kind)(rest, **opts)
