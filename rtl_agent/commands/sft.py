"""`rtl-agent sft`: LoRA supervised fine-tuning (warm start before RL), resumable."""
import argparse
import hashlib
import json
import resource
import time
from pathlib import Path

from eda.pdk import DEFAULT_PDK

DESCRIPTION = """\
Fine-tunes a LoRA adapter on chat pairs in the formats the jobs send: spec -> module, design + EDA report
-> edited design (full, SEARCH/REPLACE, and one-line edits whose answer is a behaviour-preserving rewrite of a
statement: rtl_agent/rewrites.py), design -> stimulus. Pairs come from generated small designs
(each variant linted, proven equivalent and synthesized first), the RTL files/folders given with --data
(split into modules) and the project's tasks. RTLLM and VerilogEval are refused; the overlap of what is
left with both (hash and token n-grams) is in OUT/manifest.json.

OUT gets the adapter (adapter_config.json, adapter_model.safetensors: pass it to any job with --adapter),
manifest.json (files, hashes, pair counts, token counts, overlap, training numbers), data.jsonl (the pairs),
loss.csv and loss.png. Checkpoints go to OUT/checkpoint; re-run the same command to resume."""

EXAMPLES = """examples:
  rtl-agent sft --data ../shared/corpus --out runs/sft/verilog
  rtl-agent sft --out runs/sft/quick --per-family 1 --max-steps 3 --no-tasks
  rtl-agent sft --out runs/sft/edit --init default --kinds edit-line,edit-diff --max-len 1024   # continue the bundled one
  rtl-agent regress --suite verilog-eval --policy vllm:default --adapter runs/sft/verilog
"""


def register(sub):
    p = sub.add_parser("sft", help="supervised LoRA warm start on Verilog pairs (writes an adapter for --adapter)",
                       description=DESCRIPTION, epilog=EXAMPLES, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--data", nargs="*", default=[], metavar="PATH", help="RTL files or folders (e.g. ../shared/corpus)")
    p.add_argument("--out", required=True, metavar="ADAPTER", help="output folder (the adapter)")
    p.add_argument("--model", default="default", help="base model (default: bundled SmolLM2-135M)")
    p.add_argument("--per-family", type=int, default=3, help="generated designs per family (0: none; default 3)")
    p.add_argument("--kind", choices=("jobs", "improve", "witness"), default="jobs",
                   help="jobs: the pairs of every job's format (default); improve: design + EDA report -> a better "
                   "design, from generated families whose variants differ in PPA, each proven and measured "
                   "(rtl_agent/jobs/sft/improve.py; kinds improve-full, improve-diff, improve-line); witness: the cover "
                   "job's hole prompt -> a formal witness as stimulus that its replay shows reaching the named hole, plus "
                   "the stim pairs (rtl_agent/jobs/sft/witness.py; kinds stim, witness)")
    p.add_argument("--pairs", nargs="*", default=[], metavar="JSONL",
                   help="more pairs, one JSON object a line in the data.jsonl format (kind, source, messages, prefill, "
                   "answer): e.g. the proven improvements an expert-iteration round found on generated designs "
                   "(scripts/expert_iteration.py round -> OUT/pairs.jsonl); they pass the same evaluation-set checks")
    p.add_argument("--min-ratio", type=float, default=1.10,
                   help="--kind improve: least PPA ratio worse/better of a pair (default 1.10)")
    p.add_argument("--confirm-pdk", default=None, metavar="PDK",
                   help="--kind improve: keep a pair only when its gain clears --min-ratio on this library too "
                   "(e.g. sky130hd; synthesis and STA only), so no pair teaches a gain one library's mapping gives "
                   "(default: none, the recipe of the shipped improve adapters)")
    p.add_argument("--families", default=None,
                   help="generated families: base (the bundled adapter's 23), all (33), improve (those whose variants "
                   "differ in PPA), every, or a comma list (default base; improve with --kind improve; every with --kind witness)")
    p.add_argument("--rename", type=float, default=0.0, metavar="SHARE",
                   help="share of generated designs' ports given other names, 0..1 (default 0; run v5 used 0.35)")
    p.add_argument("--no-tasks", dest="tasks", action="store_false", help="leave the project's tasks out")
    p.add_argument("--pdk", default=DEFAULT_PDK, help=f"PDK for the reports in edit prompts (default {DEFAULT_PDK})")
    p.add_argument("--epochs", type=int, default=1, help="passes over the data (default 1)")
    p.add_argument("--batch-tokens", type=int, default=2048, help="tokens (prompt + answer) per step (default 2048)")
    p.add_argument("--max-len", type=int, default=512, help="drop pairs longer than this many tokens (default 512)")
    p.add_argument("--max-steps", type=int, default=None, help="at most this many steps (the schedule shrinks to fit)")
    p.add_argument("--kinds", default=None,
                   help="pair kinds to train on (default all: rtl,edit-diff,edit-full,edit-line,stim; with --kind "
                   "improve: improve-full,improve-diff,improve-line)")
    p.add_argument("--init", default=None, metavar="ADAPTER",
                   help="start from this adapter's weights instead of a fresh LoRA ('default': the bundled one, or a "
                   "folder); its rank must match --lora-r")
    p.add_argument("--lr", type=float, default=5e-4, help="peak learning rate (default 5e-4)")
    p.add_argument("--lora-r", type=int, default=8, help="LoRA rank (default 8; vLLM serves up to 8)")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--threads", type=int, default=1, help="torch CPU threads (default 1: on a busy 2-core machine more can be slower)")
    p.add_argument("--workers", type=int, default=2, help="parallel EDA checks of generated designs (default 2)")
    p.set_defaults(func=run)


def _sha(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def build_data(args, out: Path, log) -> tuple[list, dict]:
    """The pairs (cached in OUT/data.jsonl so a resume trains on the same data) and their manifest part."""
    from rtl_agent.jobs.sft import data as sft_data
    cache = out / "data.jsonl"
    evals = sft_data.eval_items()
    files = sft_data.collect_files(args.data, evals)      # refuses evaluation sets even on resume
    meta = {"files": [{"path": str(f), "sha256": _sha(f), "bytes": f.stat().st_size} for f in files]}
    kind = getattr(args, "kind", "jobs")
    if cache.is_file():
        log(f"reusing the pairs in {cache}")
        pairs = [json.loads(x) for x in cache.read_text().splitlines()]
        meta.update(json.loads((out / "data_meta.json").read_text()))
        if kind == "jobs" and not any(p["kind"] == "edit-line" for p in pairs):   # a cache from before one-line edits
            pairs += sft_data.line_pairs(pairs, args.seed)
        return pairs, meta
    pairs = []
    if kind == "improve":
        from rtl_agent.jobs.sft.improve import generated_improve
        pairs, meta["improve"] = generated_improve(args.seed, args.per_family, args.pdk, args.workers, log,
                                                   args.families, args.min_ratio,
                                                   getattr(args, "confirm_pdk", None))
    elif kind == "witness":
        from rtl_agent.jobs.sft.witness import generated_witness
        pairs, meta["witness"] = generated_witness(args.seed, args.per_family, args.families, log)
    elif args.per_family:
        got, meta["generated"] = sft_data.generated(args.seed, args.per_family, args.pdk, args.workers, log,
                                                      args.families, args.rename)
        pairs += got
    for f in getattr(args, "pairs", None) or []:
        got = load_pairs(Path(f))
        meta.setdefault("pair_files", []).append({"path": str(f), "sha256": _sha(Path(f)), "pairs": len(got)})
        pairs += got
    if kind == "jobs":
        pairs += sft_data.file_pairs(files)
        if args.tasks:
            pairs += sft_data.task_pairs()
        pairs += sft_data.line_pairs(pairs, args.seed)
    pairs, meta["overlap"] = sft_data.overlap(pairs, evals)
    log(f"overlap check: dropped {meta['overlap']['dropped']}; " + "; ".join(
        f"{s}: {v['items_ge_50pct']}/{v['items']} items share >=50% of their {sft_data.NGRAM}-grams (max {v['max_share']})"
        for s, v in meta["overlap"]["suites"].items()))
    from eda.fsutil import atomic_write
    out.mkdir(parents=True, exist_ok=True)
    atomic_write(out / "data_meta.json", json.dumps({k: v for k, v in meta.items() if k != "files"}, indent=1))
    atomic_write(cache, "".join(json.dumps(p) + "\n" for p in pairs))
    return pairs, meta


PAIR_KEYS = ("kind", "source", "messages", "prefill", "answer")


def load_pairs(path: Path) -> list:
    """The pairs of a --pairs file; a missing file or a malformed line stops with its path and line number."""
    if not path.is_file():
        raise ValueError(f"--pairs {path}: no such file")
    out = []
    for n, line in enumerate(path.read_text().splitlines(), 1):
        if not line.strip():
            continue
        try:
            p = json.loads(line)
        except ValueError as e:
            raise ValueError(f"--pairs {path}:{n}: not JSON ({e})") from None
        missing = [k for k in PAIR_KEYS if not isinstance(p, dict) or k not in p]
        if missing or not isinstance(p["messages"], list) or not isinstance(p["answer"], str):
            raise ValueError(f"--pairs {path}:{n}: a pair needs {', '.join(PAIR_KEYS)} (missing {missing or 'types'})")
        out.append({k: p[k] for k in PAIR_KEYS})
    return out


def tokenize(policy, pairs, max_len):
    """[(prompt_ids, completion_ids)] for the pairs that fit max_len; the answer ends with EOS, as the jobs'
    samples do when the model stops by itself."""
    eos = policy.tok.eos_token_id
    seqs, kept = [], []
    for p in pairs:
        pids = policy.encode(p["messages"], p["prefill"] or None)
        cids = policy.tok(p["answer"], add_special_tokens=False)["input_ids"] + [eos]
        if len(pids) + len(cids) <= max_len:
            seqs.append((pids, cids))
            kept.append(p)
    return seqs, kept


def plot(csv_path: Path, png: Path):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import pandas as pd
    df = pd.read_csv(csv_path)
    fig, ax = plt.subplots(figsize=(6, 3.5))
    ax.plot(df["step"], df["loss"], lw=1, label="step loss")
    ax.plot(df["step"], df["loss"].rolling(5, min_periods=1).mean(), lw=2, label="mean of 5")
    ax.set_xlabel("step")
    ax.set_ylabel("NLL per answer token")
    ax.legend()
    fig.tight_layout()
    fig.savefig(png, dpi=100)
    plt.close(fig)


def run(args) -> int:
    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    from eda.fsutil import atomic_write
    from rtl_agent.policy.hf import HFPolicy
    from training.sft import run_sft
    for name in ("epochs", "batch_tokens", "max_len", "lora_r", "threads"):
        if getattr(args, name) < 1:
            raise ValueError(f"--{name.replace('_', '-')} must be >= 1")
    if not 0 <= args.rename <= 1:
        raise ValueError("--rename must be a share between 0 and 1")
    from rtl_agent.jobs.sft.generator import family_names
    kind = getattr(args, "kind", "jobs")
    if args.families is None:
        args.families = {"improve": "improve", "witness": "every"}.get(kind, "base")
    if args.kinds is None:
        args.kinds = {"improve": "improve-full,improve-diff,improve-line",
                      "witness": "stim,witness"}.get(kind, "rtl,edit-diff,edit-full,edit-line,stim")
    family_names(args.families)             # an unknown family fails before any EDA run
    out = Path(args.out)
    console = Console()
    pairs, meta = build_data(args, out, console.print)
    t0 = time.monotonic()
    import torch
    torch.manual_seed(args.seed)            # the LoRA's initial weights
    pol = HFPolicy(args.model, lora_r=args.lora_r, lora_alpha=2 * args.lora_r, threads=args.threads,
                   base_adapter=None, micro_batch=2)
    init = None
    if args.init:
        from rtl_agent.policy.models import adapter_id, resolve_adapter
        path = resolve_adapter(args.init)
        if path is None:
            raise ValueError(f"--init {args.init}: no such adapter")
        init = adapter_id(args.init)
        pol.load_adapter(path)
    want = set(args.kinds.split(","))
    todo = [p for p in pairs if p["kind"] in want]
    seqs, kept = tokenize(pol, todo, args.max_len)
    if not seqs:
        shortest = min((len(pol.encode(p["messages"], p["prefill"] or None)) for p in todo), default=0)
        raise ValueError(f"none of the {len(todo)} training pairs of kinds {sorted(want)} fits --max-len "
                         f"{args.max_len}" + (f" (the shortest prompt alone is {shortest} tokens)" if todo else "")
                         + "; raise it or add data")
    kinds, sources = {}, {}
    for p, (a, b) in zip(kept, seqs):
        kinds[p["kind"]] = kinds.get(p["kind"], 0) + 1
        src = p["source"].split(":")[0]
        sources[src] = sources.get(src, 0) + 1
    meta["pairs"] = {"built": len(pairs), "within_max_len": len(seqs), "by_kind": kinds, "by_source": sources,
                     "prompt_tokens": sum(len(a) for a, _ in seqs), "answer_tokens": sum(len(b) for _, b in seqs)}
    console.print(f"{len(seqs)} pairs ({meta['pairs']['prompt_tokens']} prompt + {meta['pairs']['answer_tokens']} "
                  f"answer tokens); by kind {kinds}")
    settings = {"model": args.model, "kind": args.kind, "kinds": sorted(want), "lora_r": args.lora_r, "epochs": args.epochs, "max_len": args.max_len,
                "max_steps": args.max_steps, **({"init": init} if init else {}),
                "data_sha": hashlib.sha256(json.dumps(kept, sort_keys=True).encode()).hexdigest()[:16]}
    with Progress(TextColumn("[bold]sft[/]"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
                  TextColumn("loss {task.fields[loss]}"), console=console) as prog:
        bar = prog.add_task("", total=None, loss="-")
        res = run_sft(pol, seqs, out, epochs=args.epochs, batch_tokens=args.batch_tokens, lr=args.lr,
                      seed=args.seed, max_steps=args.max_steps, settings=settings,
                      on_step=lambda s, n, st: prog.update(bar, completed=s, total=n, loss=f"{st['loss']:.3f}"))
    _save_small(pol, out)
    plot(out / "loss.csv", out / "loss.png")
    meta["training"] = {**res, "init": init, "threads": args.threads, "lr": args.lr, "batch_tokens": args.batch_tokens,
                        "peak_rss_mb": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024),
                        "wall_s_this_invocation": round(time.monotonic() - t0, 1)}
    meta["adapter_sha256"] = _sha(out / "adapter_model.safetensors")
    atomic_write(out / "manifest.json", json.dumps(meta, indent=1))
    console.print(f"{res['steps']} steps, {res['tokens_seen']} tokens, final loss {res['final_loss']:.4f}, "
                  f"{res['seconds']} s training; adapter in {out}/ (use --adapter {out}); loss.png, manifest.json")
    return 0


def _save_small(pol, out: Path):
    """The adapter in bf16 (half the fp32 size; the weights are merged into fp32/bf16 bases anyway)."""
    import torch
    from safetensors.torch import load_file, save_file
    pol.save_adapter(out)
    f = out / "adapter_model.safetensors"
    save_file({k: v.to(torch.bfloat16) for k, v in load_file(str(f)).items()}, str(f), metadata={"format": "pt"})
