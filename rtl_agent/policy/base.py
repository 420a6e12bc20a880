"""The policy interface: the LLM that writes RTL and stimulus.

Every backend samples; trainable ones (transformers+peft, or vLLM with a
transformers trainer beside it) also score token sequences and take LoRA steps.
"""
from __future__ import annotations

from dataclasses import dataclass, field


class PolicyError(RuntimeError):
    """A backend could not load, reach its server, or understand a response."""


@dataclass
class Completion:
    text: str
    token_ids: list = field(default_factory=list)          # generated ids (stop-string tokens included, EOS not)
    logprobs: list = field(default_factory=list)           # per generated token, raw model (temperature 1)
    prompt_token_ids: list = field(default_factory=list)   # the templated prompt as the model saw it
    finish_reason: str = "length"                          # "stop" (EOS or stop string) | "length"
    explored: bool = False                                 # a choice drawn uniformly, not by the model (choose)


def as_messages(prompt) -> list:
    """A str prompt is one user turn; a list is taken as chat messages already."""
    if isinstance(prompt, str):
        return [{"role": "user", "content": prompt}]
    if isinstance(prompt, list) and all(isinstance(m, dict) and "role" in m and "content" in m for m in prompt):
        return prompt
    raise PolicyError(f"a prompt must be a str or a list of {{'role','content'}} messages, got {type(prompt).__name__}")


ANSWER_MARGIN = 16     # tokens kept free beside the answer (chat-template closing, stop string)


def prompt_budget(policy, max_tokens: int):
    """(count, budget): how a prompt's tokens are counted for `policy` (its tokenizer; the estimate of
    Policy.count_tokens when it has none or is not loaded yet) and how many prompt tokens leave room for
    `max_tokens` of answer in its context window. Every job sizes its prompts with this one rule."""
    base = policy if policy is not None and hasattr(policy, "count_tokens") else Policy()
    window = int(getattr(base, "context_window", Policy.context_window))
    return base.count_tokens, window - max_tokens - ANSWER_MARGIN


def cut_at_stop(text: str, stop) -> tuple[str, bool]:
    """Text before the first stop string (the stop string itself excluded, as vLLM does)."""
    best = None
    for s in stop or []:
        i = text.find(s)
        if s and i >= 0 and (best is None or i < best):
            best = i
    return (text, False) if best is None else (text[:best], True)


class Policy:
    """Sampling interface shared by every backend.

    sample(..., prefill=str): the answer starts with `prefill` (e.g. "```verilog\nmodule top"); backends
    that can continue an assistant turn (hf, vllm, an OpenAI server with continue_final_message) sample
    its continuation and return text that starts with it, while token_ids stay the generated ones
    (prompt_token_ids then end with the prefill's tokens). `prefill_ok` says whether it is honoured;
    a backend that cannot returns the plain answer.
    count_tokens(messages): prompt tokens as the model sees them (chat template included);
    context_window: the most tokens prompt + answer may hold."""
    name = "policy"
    trainable = False
    prefill_ok = False
    can_ban = False        # sample(..., ban=[str]): the answer never contains those strings
    can_choose = False     # choose(...): an answer drawn among given continuations by the model's probabilities
    context_window = 8192

    def sample(self, prompts, n=1, temperature=1.0, top_p=1.0, max_tokens=256,
               stop=None, seed=None, prefill=None) -> list[list[Completion]]:
        """One list of n completions per prompt, in prompt order."""
        raise NotImplementedError

    def choose(self, prompt, options, n=1, temperature=1.0, seed=None, prefill=None, stop=None) -> list:
        """n Completions, each `prefill` + one of `options`, drawn with p(option) proportional to
        exp(log p_model(option + stop | prompt, prefill) / temperature). Backends that score sequences."""
        raise NotImplementedError

    def count_tokens(self, messages) -> int:
        """Default estimate: ~4 characters a token (backends with a tokenizer count exactly)."""
        return sum(len(m["content"]) for m in as_messages(messages)) // 4 + 8 * len(as_messages(messages))

    def close(self):
        pass

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


class TrainablePolicy(Policy):
    """What the RL loop needs beyond sampling. Implemented by hf.HFPolicy; the update itself is
    training.lora_update.rl_step, which steps .optimizer over the adapter of .model.

    logprobs(prompt_ids, completion_ids, adapter=True) -> list of 1-D tensors, one log p per
        completion token; differentiable when adapter=True and grad is enabled; adapter=False
        scores with the LoRA disabled (the frozen base model, for KL).
    save_adapter(dir) / load_adapter(dir): peft format (adapter_config.json + adapter_model.safetensors),
        which vLLM also loads. .version counts updates.
    """
    trainable = True
    version = 0

    def logprobs(self, prompt_ids, completion_ids, adapter=True):
        raise NotImplementedError

    def save_adapter(self, path):
        raise NotImplementedError

    def load_adapter(self, path):
        raise NotImplementedError

