"""transformers + peft backend: samples and scores with a LoRA adapter on any local HF model; its .optimizer
over the adapter is what training.lora_update.rl_step steps.

CPU: fp32 by default (bf16 on request); GPU: bf16. The default model is SmolLM2-135M-Instruct.
"""
from __future__ import annotations

import contextlib
import copy
import math
import os
import random
from pathlib import Path

from .base import Completion, PolicyError, TrainablePolicy, as_messages, cut_at_stop
from .models import resolve_model

# Every linear layer of a Llama-style block; vLLM can serve LoRA on all of them.
DEFAULT_TARGETS = ("q_proj", "k_proj", "v_proj", "o_proj", "gate_proj", "up_proj", "down_proj")
DTYPES = {"fp32": "float32", "float32": "float32", "bf16": "bfloat16", "bfloat16": "bfloat16",
          "fp16": "float16", "float16": "float16"}


def from_spec(rest: str, **opts) -> "HFPolicy":
    """make_policy("hf:<path or id>") and make_policy("default"): rest is the model."""
    return HFPolicy(rest or "default", **opts)


class HFPolicy(TrainablePolicy):
    name = "hf"
    prefill_ok = True

    def __init__(self, model="default", dtype=None, device=None, lora=True, lora_r=8, lora_alpha=16,
                 target_modules=DEFAULT_TARGETS, gradient_checkpointing=False, batch_size=8,
                 micro_batch=2, adapter=None, threads=None, base_adapter="default", merge_sampling=None):
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
        # base_adapter (an SFT adapter, models.resolve_adapter) is merged into the weights; `adapter` is
        # loaded into the trainable LoRA on top
        self.model_path = resolve_model(model, base_adapter)
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
        self.batch_size, self.micro_batch = batch_size, micro_batch
        if merge_sampling is None:     # decoding holds a second copy of the adapted weights; off for a model
            merge_sampling = os.environ.get("RTL_AGENT_MERGE_SAMPLING", "1") != "0"   # that fills the GPU
        self.merge_sampling = bool(merge_sampling)
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

    def encode(self, prompt, prefill=None) -> list:
        return self.tok(self.render(prompt) + (prefill or ""), add_special_tokens=False)["input_ids"]

    def count_tokens(self, messages) -> int:
        return len(self.encode(messages))

    @property
    def context_window(self) -> int:
        cfg = getattr(self.model, "config", None)
        return int(getattr(cfg, "max_position_embeddings", None) or 2048)

    # ---- sampling -----------------------------------------------------------------------------
    can_ban = True

    def sample(self, prompts, n=1, temperature=1.0, top_p=1.0, max_tokens=256, stop=None, seed=None, prefill=None,
               ban=None):
        """n completions per prompt, with ONE prefill per prompt: the KV cache of the prompt (all but
        its last token) is computed once and shared by up to batch_size samples at a time, where
        n padded copies would each prefill it (prefill of a long prompt dominates on a CPU).
        seed seeds torch's generator once, before the first prompt: a seed gives the same samples.
        prefill: the assistant's answer starts with it (appended after the chat template); each text
        starts with it, token_ids are the generated tokens only."""
        torch = self.torch
        if seed is not None:
            torch.manual_seed(seed)
        self.model.eval()
        out = []
        for p in prompts:
            ids = self.encode(p, prefill)
            with torch.no_grad(), self._merged():
                cache = self._prefill(ids[:-1])
                group = []
                for k in range(0, n, self.batch_size):
                    m = min(self.batch_size, n - k)
                    shared = copy.deepcopy(cache) if cache is not None and k + m < n else cache
                    group += self._generate(ids, shared, m, temperature, top_p, max_tokens, stop, ban)
            if prefill:
                for c in group:
                    c.text = prefill + c.text
            out.append(group)
        return out

    @contextlib.contextmanager
    def _merged(self):
        """Decoding with the LoRA folded into temporary copies of the weights it adapts, the adapter
        layers switched off: each LoRA layer costs a decoding step four small kernels more, which on
        a GPU (launch-bound at these batch sizes) took 60% of the step (bench/results/gpu_policy_check.md).
        The base weights are swapped back untouched afterwards (no merge/unmerge round trip, whose
        rounding would drift a bf16 base a little on every call)."""
        if not (self.lora and self.merge_sampling):
            yield
            return
        from peft.tuners.lora import LoraLayer
        swaps = []
        try:
            with self.torch.no_grad():
                for m in self.model.modules():
                    if isinstance(m, LoraLayer) and "default" in getattr(m, "lora_A", {}):
                        w = m.get_base_layer().weight
                        swaps.append((w, w.data))
                        w.data = w.data + m.get_delta_weight("default").to(w.dtype)
            with self.model.disable_adapter():
                yield
        finally:
            for w, orig in swaps:
                w.data = orig

    def _prefill(self, ids):
        """The KV cache of `ids` (None for no ids), one row."""
        if not ids:
            return None
        inp = self.torch.tensor([ids], device=self.device)
        return self.model(input_ids=inp, use_cache=True, logits_to_keep=1).past_key_values

    def _bad_words(self, ban) -> list:
        """Token sequences of each banned string, as it reads alone and after a space."""
        seqs = {tuple(self.tok(w, add_special_tokens=False).input_ids) for b in ban for w in (b, " " + b)}
        return [list(s) for s in seqs if s]

    def _generate(self, ids, cache, m, temperature, top_p, max_tokens, stop, ban=None):
        """m samples continuing `ids`, whose first len(ids) - 1 tokens are in `cache` (consumed)."""
        torch = self.torch
        if cache is not None:
            cache.batch_repeat_interleave(m)
        inp = torch.tensor([ids] * m, device=self.device)
        greedy = temperature is None or temperature <= 0
        kw = dict(do_sample=not greedy, max_new_tokens=max_tokens, pad_token_id=self.tok.pad_token_id,
                  output_logits=True, return_dict_in_generate=True)
        if not greedy:
            kw.update(temperature=float(temperature), top_p=float(top_p), top_k=0)
        if stop:
            kw.update(stop_strings=list(stop), tokenizer=self.tok)
        if ban:
            kw.update(bad_words_ids=self._bad_words(ban))
        g = self.model.generate(input_ids=inp, attention_mask=torch.ones_like(inp), past_key_values=cache, **kw)
        new = g.sequences[:, len(ids):]
        # Raw logits (before temperature/top-p), so logprobs match what logprobs() and vLLM report.
        lps = torch.log_softmax(torch.stack(g.logits, 1).float(), -1)
        lps = lps.gather(-1, new.unsqueeze(-1)).squeeze(-1)
        res = []
        for r in range(m):
            toks, finish = new[r].tolist(), "length"
            for j, t in enumerate(toks):
                if t in self.eos_ids:
                    toks, finish = toks[:j], "stop"
                    break
            text, hit = cut_at_stop(self.tok.decode(toks, skip_special_tokens=True), stop)
            if hit:
                # generation stopped this row at the token completing the stop string; what follows is padding
                toks = toks[:self._stop_end(toks, stop)]
                finish = "stop"
            res.append(Completion(text, toks, lps[r, :len(toks)].tolist(), list(ids), finish))
        return res

    def _stop_end(self, toks, stop) -> int:
        """Length of the shortest prefix of toks whose text holds a stop string."""
        for j in range(1, len(toks) + 1):
            if cut_at_stop(self.tok.decode(toks[:j], skip_special_tokens=True), stop)[1]:
                return j
        return len(toks)

    # ---- scoring ---------------------------------------------------------------
    can_choose = True

    def choose(self, prompt, options, n=1, temperature=1.0, seed=None, prefill=None, stop=None,
               distinct=False, explore=0) -> list:
        """n answers among `options` (continuations of `prefill`), drawn from the model's own sequence
        probabilities of them, sharpened or flattened by `temperature`; token_ids are the option's tokens
        (and the stop string's, as a sampled answer would hold them), so the RL update scores them as usual.
        distinct: without replacement while options last (Gumbel top-k on the same probabilities): a sequence
        probability is so peaked that n draws are mostly one option, and a group of one option has nothing to
        compare.
        explore (with distinct): the last `explore` of the n answers are drawn uniformly among the options the
        model did not pick, so an option it ranks low is tried and can earn the reward that raises it."""
        base, comps, lps = self._option_logprobs(prompt, options, prefill, stop)
        scores = [float(lp.sum()) / max(float(temperature or 0), 1e-3) for lp in lps]
        rnd = random.Random(seed)
        if distinct:
            keys = [x - math.log(-math.log(rnd.random() or 1e-300)) for x in scores]
            order = sorted(range(len(options)), key=lambda i: -keys[i])
            own = n - min(max(0, explore), n - 1, max(0, len(order) - n))
            picks = order[:own] + rnd.sample(order[own:], n - own)
            picks += rnd.choices(range(len(options)), weights=_softmax(scores), k=max(0, n - len(picks)))
        else:
            own, picks = n, rnd.choices(range(len(options)), weights=_softmax(scores), k=n)
        return [Completion((prefill or "") + options[i], list(comps[i]), lps[i].tolist(), list(base), "stop",
                           explored=j >= own)
                for j, i in enumerate(picks)]

    def choice_probs(self, prompt, options, prefill=None, stop=None) -> list:
        """The model's probability of each option (temperature 1, normalised over the options): what the RL
        update moves, measured before and after a step."""
        return _softmax([float(lp.sum()) for lp in self._option_logprobs(prompt, options, prefill, stop)[2]])

    def _option_logprobs(self, prompt, options, prefill, stop):
        if not options:
            raise PolicyError("choose: no options")
        base, tail = self.encode(prompt, prefill), stop or ""
        comps = []
        for o in options:
            full = self.encode(prompt, (prefill or "") + o + tail)
            comps.append(full[len(base):] if full[:len(base)] == base
                         else self.tok(o + tail, add_special_tokens=False)["input_ids"])
        self.model.eval()
        with self.torch.no_grad():
            lps = self._prefix_logprobs(base, comps)
        return base, comps, lps

    def _prefix_logprobs(self, base, comps) -> list:
        """log p(option | prompt) for each option, the prompt run once: its key/value cache is kept and cut
        back after each option (the options share a long prompt: scoring each whole cost 5-10x more)."""
        torch = self.torch
        if len(base) < 2:
            return self.logprobs([base] * len(comps), comps)
        past = self.model(input_ids=torch.tensor([base[:-1]], device=self.device), use_cache=True).past_key_values
        out = []
        for c in comps:
            if not c:
                out.append(torch.zeros(0))
                continue
            logits = self.model(input_ids=torch.tensor([[base[-1], *c]], device=self.device), past_key_values=past,
                                use_cache=True).logits[0, :len(c)].float()
            past.crop(-(len(c) + 1))
            tgt = torch.tensor(c, device=self.device).unsqueeze(-1)
            out.append(torch.log_softmax(logits, -1).gather(-1, tgt).squeeze(-1))
        return out

    def shared_logprobs(self, prompt_ids, completions, adapter=True) -> list:
        """Per-token log p(c | prompt) for each completion of a group that shares one prompt, the prompt run
        once (differentiable under the adapter, like logprobs): a choice group's eight options of a few tokens
        after a 600-token prompt cost one prompt pass, not eight."""
        if self.gradient_checkpointing and self.model.training:
            # checkpointed layers in train mode drop the key/value cache the shared prompt needs
            return self.logprobs([list(prompt_ids)] * len(completions), [list(c) for c in completions], adapter)
        if adapter or not self.lora:
            return self._prefix_logprobs(list(prompt_ids), [list(c) for c in completions])
        with self.model.disable_adapter(), self.torch.no_grad():
            return self._prefix_logprobs(list(prompt_ids), [list(c) for c in completions])

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


def _softmax(scores) -> list:
    top = max(scores)
    w = [math.exp(x - top) for x in scores]
    z = sum(w)
    return [x / z for x in w]
