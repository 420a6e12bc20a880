"""The LM chooser: the bundled SmolLM2-135M with the `choose` LoRA (rtl_agent/adapters/smollm2-choose) orders all
of a parent's transformation options by how much each is likely to gain once proven (`--chooser lm`).

Each option is one short prompt (its kind, its label, its synthesis-only estimate as a percentage). The model's
yes/no logit difference after the prompt, z, says whether the option proves out and pays (the label's words: the
kind, the site, the signal's name); the estimate says how much. The score is

    log sigmoid(z) + w * log(max(log estimate, FLOOR))

the log of P(pays) x estimated log gain, the ranker.py structure with the LM in place of the bag of words. z is read
by the LM, the estimate enters as a number (a 135M model reads digits poorly). Training (bench/choice_lm.py) is a
pairwise preference on the verified gains of options of one menu (train designs only).

Compute: the LoRA sits on the top TOP blocks only, so the blocks below are frozen and their output per prompt is
computed once and cached; training and the test-time update run only the top (on 2 shared cores a full
forward-backward of a 32-option menu took 100+ s, the top two blocks take a few).

The test-time update (Adapting) learns "better" on one design: after each evaluation, the outcome relative to the
parent (gained over it or not: a failure counts as no gain) is a target for P(pays) of the options tried so far;
the update moves a readout vector on the top hidden state, so untried options whose representation is like the
ones that paid (same kind, same signal, nearby lines) rise and those like the ones that did not fall. Steps stop at
a KL budget from the frozen menu distribution; an exploration share draws uniformly among the untried options.
"""
from __future__ import annotations

import json
import math
import random
from pathlib import Path

import torch
import torch.nn.functional as F

ADAPTER = Path(__file__).resolve().parents[2] / "adapters" / "smollm2-choose"
TOP = 2                  # blocks the LoRA trains
FLOOR = 0.01             # estimated log gain floor: an option promising nothing ranks by its chance alone
FAIL = -0.01             # reward of a failed option relative to the parent: close to no gain
YES, NO = " yes", " no"


def prompt(label: str, kind: str, estimate: float | None) -> str:
    est = "none" if not estimate else f"{(estimate - 1) * 100:+.0f}%"
    return f"Transformation ({kind}): {label}\nSynthesis estimate: {est}\nProven and better?"


def est_term(estimate: float | None) -> float:
    return math.log(max(math.log(estimate), FLOOR)) if estimate and estimate > 0 else math.log(FLOOR)


def reward(status: str, ratio: float | None, floor: float = 1.0) -> float:
    """An option's outcome relative to its parent: log gain when proven above max(1, noise floor), 0 when proven
    without a gain, FAIL when the flow refuted it."""
    if status != "proven":
        return FAIL
    return math.log(ratio) if ratio and ratio > max(1.0, floor) else 0.0


class LMChooser:
    def __init__(self, model, tok, w: float = 1.0, meta: dict | None = None):
        self.model, self.tok, self.meta = model, tok, meta or {}
        self.w = torch.nn.Parameter(torch.tensor(float(w)))
        lm = self._llama()
        emb = lm.embed_tokens.weight
        yes, no = (tok.encode(t, add_special_tokens=False) for t in (YES, NO))
        self.u = (emb[yes[0]] - emb[no[0]]).detach().clone()     # tied head: the yes-minus-no logit direction
        self.low0 = len(lm.layers) - TOP
        self._low: dict = {}                                      # prompt -> output of the frozen blocks

    def _llama(self):
        m = self.model.get_base_model() if hasattr(self.model, "get_base_model") else self.model
        return m.model

    @classmethod
    def base(cls, seed: int = 0, r: int = 8):
        """The bundled model with a fresh LoRA on its top blocks, to train."""
        from peft import LoraConfig, get_peft_model
        model, tok = _load_base()
        n = model.config.num_hidden_layers
        torch.manual_seed(seed)
        cfg = LoraConfig(r=r, lora_alpha=2 * r, lora_dropout=0.0, layers_to_transform=list(range(n - TOP, n)),
                         target_modules=["q_proj", "k_proj", "v_proj", "o_proj", "gate_proj", "up_proj", "down_proj"])
        return cls(get_peft_model(model, cfg), tok)

    @classmethod
    def load(cls, folder: Path | str = ADAPTER):
        from peft import PeftModel
        folder = Path(folder)
        if not (folder / "chooser.json").is_file():
            raise FileNotFoundError(f"no LM chooser at {folder} (train it with bench/choice_lm.py --ship)")
        meta = json.loads((folder / "chooser.json").read_text())
        if meta.get("top") != TOP:
            raise ValueError(f"{folder}: trained with its LoRA on {meta.get('top')} top blocks, this code uses {TOP}")
        model, tok = _load_base()
        return cls(PeftModel.from_pretrained(model, str(folder)).eval(), tok, meta["w"], meta)

    def save(self, folder: Path, meta: dict):
        folder.mkdir(parents=True, exist_ok=True)
        readme = folder / "README.md"
        keep = readme.read_text() if readme.exists() else None
        self.model.save_pretrained(str(folder))
        if keep is not None:                    # peft writes a model card of its own; ours says what it is
            readme.write_text(keep)
        (folder / "chooser.json").write_text(json.dumps({"w": round(float(self.w), 6), "top": TOP, "floor": FLOOR,
                                                         **meta}, indent=1) + "\n")

    # ---- the forward pass: frozen blocks once per prompt, the top blocks each time ----------------------------
    @torch.no_grad()
    def _lows(self, texts: list):
        todo = [t for t in dict.fromkeys(texts) if t not in self._low]
        lm = self._llama()
        for i in range(0, len(todo), 16):
            chunk = todo[i:i + 16]
            b = self.tok(chunk, return_tensors="pt", padding=True)
            h = lm.embed_tokens(b.input_ids)
            h = _blocks(lm, lm.layers[:self.low0], h)
            for t, hh, n in zip(chunk, h, b.attention_mask.sum(1).tolist()):
                self._low[t] = hh[:n].clone()
        return [self._low[t] for t in texts]

    def top(self, texts: list):
        """(z, h): the yes/no logit difference of each prompt and the top hidden state it is read from."""
        lows = self._lows(texts)
        n = torch.tensor([x.shape[0] for x in lows])
        h = torch.nn.utils.rnn.pad_sequence(lows, batch_first=True)            # right padding: causal attention
        lm = self._llama()                                                     # never reads it for a real token
        h = lm.norm(_blocks(lm, lm.layers[self.low0:], h))
        last = h[torch.arange(len(texts)), n - 1]
        return last @ self.u, last

    def scores(self, labels, kinds, estimates) -> list[float]:
        with torch.no_grad():
            z, _ = self.top([prompt(lab, k, e) for lab, k, e in zip(labels, kinds, estimates)])
            est = torch.tensor([est_term(e) for e in estimates])
            return (F.logsigmoid(z) + self.w * est).tolist()

    def order(self, labels, kinds, estimates) -> list[int]:
        """Indexes, most promising first (all options: the menu the policy sees is cut after this order)."""
        s = self.scores(labels, kinds, estimates)
        return sorted(range(len(s)), key=lambda i: -s[i])


def _blocks(lm, layers, h):
    """Decoder blocks under the causal mask alone: prompts are right-padded, so every key a real token attends
    to is real (the padded rows' tails are never read)."""
    pos = torch.arange(h.shape[1]).unsqueeze(0)
    pe = lm.rotary_emb(h, position_ids=pos)
    for layer in layers:
        h = layer(h, attention_mask=None, position_ids=pos, position_embeddings=pe)
        h = h[0] if isinstance(h, tuple) else h
    return h


def _load_base():
    from transformers import AutoModelForCausalLM, AutoTokenizer

    from rtl_agent.policy.models import default_model_dir
    d = str(default_model_dir())
    tok = AutoTokenizer.from_pretrained(d)
    tok.padding_side = "right"
    model = AutoModelForCausalLM.from_pretrained(d, dtype=torch.float32)
    return model, tok


class Adapting:
    """Test-time choice on one menu: pick, observe the verified outcome, update, pick again."""

    def __init__(self, chooser: LMChooser, labels, kinds, estimates, explore: float = 0.1, seed: int = 0,
                 budget: float = math.log(2), lr: float = 0.02, steps: int = 5, update: bool = True):
        with torch.no_grad():
            self.z0, self.h = chooser.top([prompt(lab, k, e) for lab, k, e in zip(labels, kinds, estimates)])
            self.est = float(chooser.w) * torch.tensor([est_term(e) for e in estimates])
        self.v = torch.zeros(self.h.shape[1], requires_grad=True)
        self.opt = torch.optim.Adam([self.v], lr=lr)
        self.p0 = F.softmax(self._scores().detach(), 0)
        self.explore, self.rng, self.budget = explore, random.Random(seed), budget
        self.steps, self.update = steps, update
        self.tried, self.rewards = [], []

    def _scores(self):
        return F.logsigmoid(self.z0 + self.h @ self.v) + self.est

    def pick(self) -> int:
        left = [i for i in range(len(self.z0)) if i not in self.tried]
        if self.explore and self.rng.random() < self.explore:
            return self.rng.choice(left)
        s = self._scores().detach()
        return max(left, key=lambda i: float(s[i]))

    def observe(self, i: int, r: float):
        """Option i gave reward r relative to the parent; move P(pays) toward what this design's outcomes say.
        The target is "gained over the parent" (r > 0), so a proven option without a gain teaches what a failure
        does: the update learns "better", not "valid". Only P(pays) moves, never the estimate's share: a kind
        that paid here rises to the top of the options like it, which are then ranked by the gain they promise
        (an update of the menu's softmax toward the option that paid crowded the next picks with its small
        siblings: bench/results/choice_lm.md)."""
        self.tried.append(i)
        self.rewards.append(r)
        if not self.update:
            return
        y = torch.tensor([1.0 if x > 0 else 0.0 for x in self.rewards])
        idx = torch.tensor(self.tried)
        for _ in range(self.steps):
            keep = self.v.detach().clone()
            loss = F.binary_cross_entropy_with_logits(self.z0[idx] + self.h[idx] @ self.v, y)
            self.opt.zero_grad()
            loss.backward()
            self.opt.step()
            with torch.no_grad():
                logp = F.log_softmax(self._scores(), 0)
                if float((self.p0 * (self.p0.log() - logp)).sum()) > self.budget:
                    self.v.copy_(keep)          # the step that crossed the KL budget is undone
                    break
