"""Supervised fine-tuning of a policy's adapter: the mean negative log-likelihood of completion tokens,
through the same policy.logprobs path (and optimizer) as the RL step in training.lora_update.

    stats = sft_step(policy, [(prompt_ids, completion_ids), ...])
    run_sft(policy, seqs, out, epochs=1, batch_tokens=4096, lr=2e-4)     # resumable, writes out/loss.csv
"""
from __future__ import annotations

import csv
import json
import math
import random
import time
from pathlib import Path

import torch


def sft_step(policy, batch, lr: float | None = None, max_grad_norm: float | None = 1.0, micro_batch=None) -> dict:
    """One optimizer step on a batch of (prompt_ids, completion_ids); loss is the token-weighted mean NLL."""
    opt = policy.optimizer
    if lr is not None:
        for pg in opt.param_groups:
            pg["lr"] = lr
    n_tok = sum(len(c) for _, c in batch)
    if not n_tok:
        raise ValueError("sft_step: no completion tokens in the batch")
    mb = int(micro_batch or getattr(policy, "micro_batch", 1) or 1)
    policy.model.train()
    opt.zero_grad(set_to_none=True)
    total = 0.0
    try:
        for k in range(0, len(batch), mb):
            chunk = batch[k:k + mb]
            lps = policy.logprobs([p for p, _ in chunk], [c for _, c in chunk], adapter=True)
            loss = -torch.cat(lps).sum() / n_tok
            loss.backward()
            total += float(loss.detach())
        params = [p for pg in opt.param_groups for p in pg["params"] if p.grad is not None]
        gn = float(torch.nn.utils.clip_grad_norm_(params, max_grad_norm or float("inf")))
        stepped = math.isfinite(gn)
        if stepped:
            opt.step()
            policy.version += 1
        opt.zero_grad(set_to_none=True)
    finally:
        policy.model.eval()
    return {"loss": total, "tokens": n_tok, "sequences": len(batch), "grad_norm": gn, "stepped": stepped}


def batches(seqs, batch_tokens: int, seed: int, epochs: int) -> list:
    """Index lists per step: every epoch shuffled (seeded), sequences packed up to batch_tokens
    (prompt + completion) per step; a sequence longer than that is a step by itself."""
    out, r = [], random.Random(seed)
    for _ in range(epochs):
        order = list(range(len(seqs)))
        r.shuffle(order)
        cur, size = [], 0
        for i in order:
            n = len(seqs[i][0]) + len(seqs[i][1])
            if cur and size + n > batch_tokens:
                out.append(cur)
                cur, size = [], 0
            cur.append(i)
            size += n
        if cur:
            out.append(cur)
    return out


def lr_at(step: int, total: int, lr: float, warmup: int) -> float:
    """Linear warm-up, then cosine decay to 10% of lr."""
    if step < warmup:
        return lr * (step + 1) / warmup
    f = (step - warmup) / max(1, total - warmup)
    return lr * (0.1 + 0.45 * (1 + math.cos(math.pi * min(1.0, f))))


def run_sft(policy, seqs, out, epochs=1, batch_tokens=4096, lr=2e-4, warmup=5, seed=0, checkpoint_every=5,
            max_steps=None, settings=None, on_step=None) -> dict:
    """Train policy's adapter on seqs [(prompt_ids, completion_ids)]; resumable from out/checkpoint.

    out/checkpoint/ holds the adapter, optimizer state and step count (written every checkpoint_every
    steps and at the end); out/loss.csv one row per step. A resume with different `settings` (or data)
    is refused. Returns {"steps", "tokens_seen", "final_loss", "seconds"}."""
    out = Path(out)
    ck = out / "checkpoint"
    plan = batches(seqs, batch_tokens, seed, epochs)[:max_steps or None]
    total = len(plan)       # max_steps shortens the schedule (warm-up, decay) too
    ident = dict(settings or {}, sequences=len(seqs), steps=total, seed=seed, batch_tokens=batch_tokens, lr=lr)
    start, tokens_seen, secs = 0, 0, 0.0
    if (ck / "state.json").is_file():
        st = json.loads((ck / "state.json").read_text())
        if st["settings"] != json.loads(json.dumps(ident)):
            diff = sorted(k for k in set(st["settings"]) | set(ident) if st["settings"].get(k) != ident.get(k))
            raise ValueError(f"{out} holds a run with other settings ({', '.join(diff)}); use another --out")
        policy.load_adapter(ck)
        policy.optimizer.load_state_dict(torch.load(ck / "optimizer.pt", weights_only=True))
        start, tokens_seen, secs = st["step"], st["tokens_seen"], st["seconds"]
    out.mkdir(parents=True, exist_ok=True)
    log = out / "loss.csv"
    head = "step,loss,tokens,lr,grad_norm,seconds\n"
    # steps after the checkpoint are redone: their rows go
    rows = log.read_text().splitlines()[1:] if start and log.is_file() else []
    log.write_text(head + "".join(r + "\n" for r in rows if int(r.split(",")[0]) <= start))
    last = None

    def save(step):
        tmp = out / "checkpoint.tmp"
        policy.save_adapter(tmp)
        torch.save(policy.optimizer.state_dict(), tmp / "optimizer.pt")
        (tmp / "state.json").write_text(json.dumps({"settings": ident, "step": step, "tokens_seen": tokens_seen,
                                                    "seconds": round(secs, 1)}))
        if ck.exists():
            import shutil
            shutil.rmtree(ck)
        tmp.rename(ck)

    for step in range(start, len(plan)):
        t0 = time.monotonic()
        cur_lr = lr_at(step, total, lr, warmup)
        st = sft_step(policy, [seqs[i] for i in plan[step]], lr=cur_lr)
        secs += time.monotonic() - t0
        tokens_seen += sum(len(seqs[i][0]) + len(seqs[i][1]) for i in plan[step])
        last = st["loss"]
        with open(log, "a", newline="") as f:
            csv.writer(f).writerow([step + 1, round(st["loss"], 5), st["tokens"], f"{cur_lr:.3g}",
                                    round(st["grad_norm"], 4), round(secs, 1)])
        if (step + 1) % checkpoint_every == 0 or step + 1 == len(plan):
            save(step + 1)
        if on_step:
            on_step(step + 1, len(plan), st)
    if last is None and log.is_file():
        rows = list(csv.DictReader(open(log)))
        last = float(rows[-1]["loss"]) if rows else None
    return {"steps": len(plan), "tokens_seen": tokens_seen, "final_loss": last, "seconds": round(secs, 1)}
