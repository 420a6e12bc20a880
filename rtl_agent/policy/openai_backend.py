"""OpenAI-compatible chat/completions client for frozen-policy runs (vLLM server, llama.cpp, hosted APIs).

Plain urllib: no extra dependency. Retries with exponential backoff on refused connections,
timeouts, 429 and 5xx; any other failure is a PolicyError that says what happened and where.
"""
from __future__ import annotations

import json
import os
import socket
import time
import urllib.error
import urllib.request
from concurrent.futures import ThreadPoolExecutor

from .base import Completion, Policy, PolicyError, as_messages

RETRY_STATUS = {408, 409, 425, 429, 500, 502, 503, 504}


def from_spec(rest: str, **opts) -> "OpenAIPolicy":
    """make_policy("openai:<model>@<base_url>"): rest is "<model>@<base_url>"."""
    model, at, url = rest.rpartition("@")
    if not at or not model or not url:
        raise PolicyError(f"openai spec must be 'openai:<model>@<base_url>', got {'openai:' + rest!r}")
    return OpenAIPolicy(model, url, **opts)


class OpenAIPolicy(Policy):
    name = "openai"

    def __init__(self, model, base_url, api_key=None, timeout=120.0, retries=3, backoff=1.0,
                 concurrency=4, logprobs=True, extra_body=None, context_window=None, prefill=True):
        self.model = model
        url = base_url.rstrip("/")
        if not url.startswith(("http://", "https://")):
            raise PolicyError(f"base_url must start with http:// or https://, got {base_url!r}")
        self.base_url = url if url.endswith("/v1") else url + "/v1"
        self.api_key = api_key or os.environ.get("OPENAI_API_KEY") or "EMPTY"
        self.timeout, self.retries, self.backoff = timeout, retries, backoff
        self.concurrency = max(1, concurrency)
        self.want_logprobs = logprobs
        self.extra_body = dict(extra_body or {})
        # vLLM servers return token ids on request; other servers may reject the field, so it is
        # dropped after the first 400 that names it.
        self._token_ids = True
        # Answer prefill through vLLM's continue_final_message (the last message is an unfinished
        # assistant turn); dropped, with a note, after the first 400 that names it.
        self.prefill_ok = bool(prefill)
        # None: asked of the server on first use (vLLM's /v1/models gives max_model_len), else 8192
        self._window = int(context_window) if context_window else None
        self._counts: dict = {}
        self._tokenize_ok = True

    def _post(self, path, body):
        url = self.base_url + path
        data = json.dumps(body).encode()
        last = None
        for attempt in range(self.retries + 1):
            if attempt:
                time.sleep(self.backoff * 2 ** (attempt - 1))
            req = urllib.request.Request(url, data=data, method="POST", headers={
                "Content-Type": "application/json", "Authorization": f"Bearer {self.api_key}"})
            try:
                with urllib.request.urlopen(req, timeout=self.timeout) as r:
                    raw = r.read()
            except urllib.error.HTTPError as e:
                text = e.read().decode("utf-8", "replace")[:500]
                if e.code in RETRY_STATUS:
                    last = f"HTTP {e.code}: {text}"
                    continue
                raise PolicyError(f"{url} refused the request: HTTP {e.code}: {text}") from None
            except urllib.error.URLError as e:
                reason = e.reason
                if isinstance(reason, ConnectionRefusedError):
                    last = "connection refused (is the server running?)"
                else:
                    last = f"{type(reason).__name__}: {reason}"
                continue
            except (socket.timeout, TimeoutError):
                last = f"no answer within {self.timeout:g} s"
                continue
            except (ConnectionError, OSError) as e:
                last = f"{type(e).__name__}: {e}"
                continue
            try:
                return json.loads(raw)
            except ValueError:
                raise PolicyError(f"{url} sent a response that is not JSON: {raw[:200]!r}") from None
        raise PolicyError(f"cannot reach {url} after {self.retries + 1} tries: {last}")

    def _one(self, prompt, n, temperature, top_p, max_tokens, stop, seed, prefill=None):
        msgs = as_messages(prompt)
        use_prefill = bool(prefill) and self.prefill_ok
        if use_prefill:
            msgs = msgs + [{"role": "assistant", "content": prefill}]
        body = {"model": self.model, "messages": msgs, "n": n, "temperature": temperature,
                "top_p": top_p, "max_tokens": max_tokens}
        if use_prefill:
            body.update(continue_final_message=True, add_generation_prompt=False)
        if stop:
            body["stop"] = list(stop)
        if seed is not None:
            body["seed"] = seed
        if self.want_logprobs:
            body["logprobs"] = True
        body.update(self.extra_body)
        if self._token_ids:
            body["return_token_ids"] = True
        try:
            resp = self._post("/chat/completions", body)
        except PolicyError as e:
            if use_prefill and "continue_final_message" in str(e):
                import warnings
                warnings.warn(f"{self.base_url} does not continue an assistant turn (continue_final_message): "
                              "answer prefill is ignored from now on")
                self.prefill_ok = False
                return self._one(prompt, n, temperature, top_p, max_tokens, stop, seed)
            if not (self._token_ids and "return_token_ids" in str(e)):
                raise
            self._token_ids = False
            body.pop("return_token_ids")
            resp = self._post("/chat/completions", body)
        out = self._parse(resp)
        if use_prefill:
            for c in out:
                if not c.text.startswith(prefill):
                    c.text = prefill + c.text
        return out

    def _parse(self, resp):
        try:
            choices = sorted(resp["choices"], key=lambda c: c.get("index", 0))
            prompt_ids = resp.get("prompt_token_ids") or []
            out = []
            for c in choices:
                text = (c.get("message") or {}).get("content") or ""
                lp = [t["logprob"] for t in ((c.get("logprobs") or {}).get("content") or [])]
                fin = "stop" if c.get("finish_reason") in ("stop", "eos", "stop_sequence") else "length"
                out.append(Completion(text, list(c.get("token_ids") or []), lp, list(prompt_ids), fin))
            return out
        except (KeyError, TypeError, AttributeError) as e:
            raise PolicyError(f"{self.base_url}: unexpected response shape ({e}): {str(resp)[:300]}") from None

    def sample(self, prompts, n=1, temperature=1.0, top_p=1.0, max_tokens=256, stop=None, seed=None, prefill=None):
        args = (n, temperature, top_p, max_tokens, stop, seed, prefill)
        if len(prompts) <= 1 or self.concurrency == 1:
            return [self._one(p, *args) for p in prompts]
        with ThreadPoolExecutor(self.concurrency) as ex:
            return list(ex.map(lambda p: self._one(p, *args), prompts))

    def _model_rows(self) -> list:
        req = urllib.request.Request(self.base_url + "/models", headers={"Authorization": f"Bearer {self.api_key}"})
        try:
            with urllib.request.urlopen(req, timeout=self.timeout) as r:
                return list(json.loads(r.read())["data"])
        except (urllib.error.URLError, OSError, ValueError, KeyError) as e:
            raise PolicyError(f"cannot list models at {self.base_url}: {e}") from None

    def models(self) -> list:
        """Model ids the server offers (GET /v1/models)."""
        return [m["id"] for m in self._model_rows()]

    @property
    def context_window(self) -> int:
        """The served model's max_model_len when the server says it (vLLM does), else 8192: a prompt
        sized for a larger window than the server's is refused with HTTP 400."""
        if self._window is None:
            self._window = Policy.context_window
            try:
                for m in self._model_rows():
                    if m.get("id") == self.model and m.get("max_model_len"):
                        self._window = int(m["max_model_len"])
            except PolicyError:
                pass
        return self._window

    def count_tokens(self, messages) -> int:
        """Exact count from vLLM's /tokenize (with the chat template) when the server has it; else the
        base estimate. Cached: the prompt-fitting loop counts the same messages more than once."""
        msgs = as_messages(messages)
        key = json.dumps(msgs, sort_keys=True)
        if key in self._counts:
            return self._counts[key]
        n = None
        if self._tokenize_ok:
            root = self.base_url[:-len("/v1")]
            req = urllib.request.Request(root + "/tokenize", method="POST", data=json.dumps(
                {"model": self.model, "messages": msgs, "add_generation_prompt": True}).encode(),
                headers={"Content-Type": "application/json", "Authorization": f"Bearer {self.api_key}"})
            try:
                with urllib.request.urlopen(req, timeout=min(self.timeout, 30)) as r:
                    n = int(json.loads(r.read())["count"])
            except (urllib.error.URLError, OSError, ValueError, KeyError, TypeError):
                self._tokenize_ok = False      # not vLLM (or an old one): estimate from now on
        if n is None:
            n = super().count_tokens(msgs)
        self._counts[key] = n
        return n
