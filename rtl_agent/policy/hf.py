"""transformers + peft backend: samples, scores and trains a LoRA adapter on any local HF model.

CPU: fp32 by default (bf16 on request); GPU: bf16. The default model is SmolLM2-135M-Instruct.
"""
from __future__ import annotations

import time
from pathlib import Path

from .base import Completion, PolicyError, TrainablePolicy, as_messages, cut_at_stop
from .models import resolve_model

# Every linear layer of a Llama-style block; vLLM can serve LoRA on all of them.
DEFAULT_TARGETS = ("q_proj", "k_proj", "v_proj", "o_proj", "gate_proj", "up_proj", "down_proj")
DTYPES = {"fp32": "float32", "float32": "float32", "bf16": "bfloat16", "bfloat16": "bfloat16",
          "fp16": "float16", "float16": "float16"}


class HFPolicy(TrainablePolicy):
    name = "hf"

    def __init__(self, model="default", dtype=None, device=None, lora=True, lora_r=8, lora_alpha=16,
                 target_modules=DEFAULT_TARGETS, gradient_checkpointing=False, batch_size=8,
                 micro_batch=2, max_grad_norm=1.0, adapter=None, threads=None):
        import torch
        if threads:   # on a shared, oversubscribed CPU one thread can be 10x faster than two
            torch.set_num_threads(int(threads))
        from transformers import AutoModelForCausalLM, AutoTokenizer
        self.torch = torch
        self.device = device or ("cuda" if torch.cuda.is_available() else "cpu")
        if dtype is None:
            dtype = "bf16" if self.device.startswith("cuda") else "fp32"
        if dtype not in DTYPES:
            raise PolicyError(f"dtype must be one of {sorted(DTYPES)}, got {dtype!r}")
        self.dtype = getattr(torch, DTYPES[dtype])
        self.model_path = resolve_model(model)
        kw = {}
        p = Path(self.model_path)
        if p.is_dir() and not (p / "config.json").is_file():      # a folder holding only a GGUF
            kw["gguf_file"] = sorted(p.glob("*.gguf"))[0].name
        try:
            self.tok = AutoTokenizer.from_pretrained(self.model_path, **kw)
            base = AutoModelForCausalLM.from_pretrained(self.model_path, dtype=self.dtype, **kw)
        except OSError as e:
            raise PolicyError(f"cannot load model {self.model_path!r} offline: {e}") from e
        if self.tok.pad_token_id is None:
            self.tok.pad_token = self.tok.eos_token
        self.tok.padding_side = "left"
        base.to(self.device)
        self.lora = bool(lora)
        if self.lora:
            from peft import LoraConfig, get_peft_model
            cfg = LoraConfig(r=lora_r, lora_alpha=lora_alpha, lora_dropout=0.0, bias="none",
                             target_modules=list(target_modules), task_type="CAUSAL_LM")
            self.model = get_peft_model(base, cfg)
        else:
            self.model = base
        self.gradient_checkpointing = gradient_checkpointing
        if gradient_checkpointing:
            # use_reentrant=False keeps grads flowing to LoRA weights without input-grad hooks.
            self.model.gradient_checkpointing_enable(gradient_checkpointing_kwargs={"use_reentrant": False})
        self.model.eval()
        self.batch_size, self.micro_batch, self.max_grad_norm = batch_size, micro_batch, max_grad_norm
        params = [q for q in self.model.parameters() if q.requires_grad]
        self.optimizer = torch.optim.AdamW(params, lr=1e-5) if params else None
        self.version = 0
        self.eos_ids = self._eos_ids()
        if adapter:
            self.load_adapter(adapter)

    # ---- prompts ----------------------------------------------------------------------------
    def _eos_ids(self) -> set:
        ids = {self.tok.eos_token_id}
        g = getattr(self.model, "generation_config", None)
        e = getattr(g, "eos_token_id", None)
        ids |= set(e) if isinstance(e, (list, tuple)) else {e}
        return {i for i in ids if i is not None}

    def render(self, prompt) -> str:
        """The prompt as text after the chat template (generation prompt appended)."""
        msgs = as_messages(prompt)
        if self.tok.chat_template:
            return self.tok.apply_chat_template(msgs, add_generation_prompt=True, tokenize=False)
        return "\n".join(m["content"] for m in msgs) + "\n"

    def encode(self, prompt) -> list:
        return self.tok(self.render(prompt), add_special_tokens=False)["input_ids"]

    # ---- sampling -----------------------------------------------------------------------------
    def sample(self, prompts, n=1, temperature=1.0, top_p=1.0, max_tokens=256, stop=None, seed=None):
        torch = self.torch
        if seed is not None:
            torch.manual_seed(seed)
        enc = [self.encode(p) for p in prompts]
        jobs = [(i, ids) for i, ids in enumerate(enc) for _ in range(n)]
        out = [[] for _ in prompts]
        self.model.eval()
        for k in range(0, len(jobs), self.batch_size):
            chunk = jobs[k:k + self.batch_size]
            for (i, ids), c in zip(chunk, self._generate([ids for _, ids in chunk], temperature, top_p,
                                                         max_tokens, stop)):
                out[i].append(c)
        return out

    def _generate(self, batch_ids, temperature, top_p, max_tokens, stop):
        torch = self.torch
        L = max(len(x) for x in batch_ids)
        pad = self.tok.pad_token_id
        inp = torch.tensor([[pad] * (L - len(x)) + x for x in batch_ids], device=self.device)
        att = torch.tensor([[0] * (L - len(x)) + [1] * len(x) for x in batch_ids], device=self.device)
        greedy = temperature is None or temperature <= 0
        kw = dict(do_sample=not greedy, max_new_tokens=max_tokens, pad_token_id=pad,
                  output_logits=True, return_dict_in_generate=True)
        if not greedy:
            kw.update(temperature=float(temperature), top_p=float(top_p), top_k=0)
        if stop:
            kw.update(stop_strings=list(stop), tokenizer=self.tok)
        with torch.no_grad():
            g = self.model.generate(input_ids=inp, attention_mask=att, **kw)
        new = g.sequences[:, L:]
        # Raw logits (before temperature/top-p), so logprobs match what logprobs() and vLLM report.
        lps = torch.log_softmax(torch.stack(g.logits, 1).float(), -1)
        lps = lps.gather(-1, new.unsqueeze(-1)).squeeze(-1)
        res = []
        for r, ids in enumerate(batch_ids):
            toks = new[r].tolist()
            finish = "length"
            for j, t in enumerate(toks):
                if t in self.eos_ids:
                    toks, finish = toks[:j], "stop"
                    break
            text = self.tok.decode(toks, skip_special_tokens=True)
            text, hit = cut_at_stop(text, stop)
            if hit:
                finish = "stop"
            res.append(Completion(text, toks, lps[r, :len(toks)].tolist(), list(ids), finish))
        return res

    # ---- scoring and training ---------------------------------------------------------------
    def logprobs(self, prompt_ids, completion_ids, adapter=True):
        """Per-token log p(completion | prompt). One pair of id lists -> a tensor; lists of them -> a list."""
        single = bool(prompt_ids) and isinstance(prompt_ids[0], int)
        if single:
            prompt_ids, completion_ids = [prompt_ids], [completion_ids]
        if len(prompt_ids) != len(completion_ids):
            raise PolicyError("logprobs: prompt_ids and completion_ids differ in length")
        out = []
        for k in range(0, len(prompt_ids), self.micro_batch):
            out += self._score(prompt_ids[k:k + self.micro_batch], completion_ids[k:k + self.micro_batch], adapter)
        return out[0] if single else out

    def _score(self, prompts, comps, adapter):
        torch = self.torch
        seqs = [list(p) + list(c) for p, c in zip(prompts, comps)]
        T = max(len(s) for s in seqs)
        pad = self.tok.pad_token_id
        inp = torch.tensor([s + [pad] * (T - len(s)) for s in seqs], device=self.device)
        att = torch.tensor([[1] * len(s) + [0] * (T - len(s)) for s in seqs], device=self.device)
        if adapter or not self.lora:
            logits = self.model(input_ids=inp, attention_mask=att, use_cache=False).logits
        else:
            with self.model.disable_adapter(), torch.no_grad():
                logits = self.model(input_ids=inp, attention_mask=att, use_cache=False).logits
        res = []
        for r, (p, c) in enumerate(zip(prompts, comps)):
            if not c:
                res.append(logits.new_zeros(0, dtype=torch.float32))
                continue
            lo = logits[r, len(p) - 1:len(p) + len(c) - 1].float()   # position t predicts token t+1
            tgt = torch.tensor(c, device=self.device).unsqueeze(-1)
            res.append(torch.log_softmax(lo, -1).gather(-1, tgt).squeeze(-1))
        return res

    def train_step(self, batch, lr, loss_fn=None):
        """One optimizer step over batch = [(prompt_ids, completion_ids, advantage)], micro-batched.

        Default loss: -(advantage * mean token logprob), averaged over the batch. A loss_fn(logprobs, chunk)
        returns the mean loss over one micro-batch chunk; chunks are weighted by their size.
        """
        if self.optimizer is None:
            raise PolicyError("this policy has no trainable parameters (lora=False)")
        torch = self.torch
        t0 = time.time()
        for g in self.optimizer.param_groups:
            g["lr"] = lr
        self.model.train()
        self.optimizer.zero_grad(set_to_none=True)
        total, ntok = 0.0, 0
        for k in range(0, len(batch), self.micro_batch):
            chunk = batch[k:k + self.micro_batch]
            lps = self.logprobs([b[0] for b in chunk], [b[1] for b in chunk], adapter=True)
            if loss_fn is None:
                terms = [-float(b[2]) * lp.mean() for b, lp in zip(chunk, lps) if lp.numel()]
                loss = torch.stack(terms).sum() / len(batch) if terms else None
            else:
                loss = loss_fn(lps, chunk) * (len(chunk) / len(batch))
            ntok += sum(len(b[1]) for b in chunk)
            if loss is not None and loss.requires_grad:
                loss.backward()
                total += float(loss.detach())
        params = [q for q in self.model.parameters() if q.requires_grad]
        gn = float(torch.nn.utils.clip_grad_norm_(params, self.max_grad_norm or float("inf")))
        self.optimizer.step()
        self.optimizer.zero_grad(set_to_none=True)
        self.model.eval()
        self.version += 1
        return {"loss": total, "grad_norm": gn, "tokens": ntok, "seconds": time.time() - t0,
                "version": self.version}

    # ---- adapters -----------------------------------------------------------------------------
    def save_adapter(self, path):
        if not self.lora:
            raise PolicyError("save_adapter: policy was built with lora=False")
        path = Path(path)
        path.mkdir(parents=True, exist_ok=True)
        self.model.save_pretrained(str(path))
        return path

    def load_adapter(self, path):
        if not self.lora:
            raise PolicyError("load_adapter: policy was built with lora=False")
        from peft.utils import load_peft_weights, set_peft_model_state_dict
        path = Path(path)
        if not (path / "adapter_config.json").is_file():
            raise PolicyError(f"{path} is not a saved adapter (no adapter_config.json)")
        res = set_peft_model_state_dict(self.model, load_peft_weights(str(path), device=self.device))
        bad = [k for k in getattr(res, "unexpected_keys", []) if "lora" in k]
        if bad:
            raise PolicyError(f"adapter in {path} does not fit this model/LoRA config: {bad[:3]}")
        self.version += 1
        return path

    def adapter_state(self) -> dict:
        """LoRA weights by name (detached copies), for comparisons and checkpoints."""
        return {k: v.detach().clone() for k, v in self.model.state_dict().items() if "lora_" in k}
