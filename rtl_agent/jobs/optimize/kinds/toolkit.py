"""What an action kind may use of an optimize run: the environment builds one Toolkit and passes it to every
kind's available/group/extract (kinds/base.py), so the whole plug-in interface is this class.

  facts      cfg (the run's settings, read-only by convention), top, spec, slack(code), narrow_lines(code),
             transform_options(code, sid), design(code), state(sid), parent_code(group), same(code, parent)
  prompt     view(payload, action): the parent whole or a focus region, with its prompt;
             prefill(action, parent), stop(action, prefill)
  groups     edit_group(...): the Group of an edit-style kind; spec_group(sid, n): a design from the spec
  answers    extract_answer(text, group, attempt): the module or the applied edit in an answer (re-prompts)

It reads the environment's public state (settings, task, policy, value ranges, pool) and keeps the caches the
kinds share (a design's options and slack, the options drawn or failed per parent).
"""
from __future__ import annotations

from eda.ranges import declared
from rtl_agent import edits, focus, prompts
from rtl_agent import transforms
from rtl_agent.policy.base import prompt_budget
from training.loop import Group
from training.rows import Attempt, Candidate, Retry

from ..actions import narrow_target, narrow_widths
from .transform import MENU


class Toolkit:
    def __init__(self, env):
        self._env = env
        self.skipped = {}                   # transformation kind -> why it offered nothing (logged when a run opens)
        self._tx_options = {}               # design text -> the library's options
        self._drawn, self._failed = {}, {}  # parent id -> transformation labels drawn on it / failed on it
        self._slack_of = {}                 # code -> its registers with headroom (asked for by every edit prompt)
        self._estimator = None              # synthesis-only estimates of options (--chooser estimate, learned)
        self._ranker = None                 # --chooser learned | lm: the trained ranker

    # ---- facts ---------------------------------------------------------------------------------------
    @property
    def cfg(self):
        return self._env.cfg

    @property
    def top(self) -> str:
        return self._env.task.top

    @property
    def spec(self) -> str:
        return self._env.task.spec

    def state(self, sid):
        """The pool entry `sid` (its payload: code, report; its parent)."""
        return self._env.pool_[sid]

    def design(self, code: str):
        """The transformation library's view of a design (value ranges and PDK of this run)."""
        return transforms.Design(code, self.top, self._env.ranges, self._env.pdk)

    def parent_code(self, group) -> str | None:
        pool = self._env.pool_
        if group is None or pool is None or group.parent is None:
            return None
        return pool[group.parent].payload.get("code")

    @staticmethod
    def same(code: str, parent: str | None) -> bool:
        return bool(parent) and edits.same_design(code, parent)

    def slack(self, code: str) -> dict:
        """{name: Range} of the reference's registers that `code` still declares wider than the values the
        testbench gave them (eda/ranges.py)."""
        if code not in self._slack_of:
            ranges = self._env.ranges
            now = declared(code, self.top) if ranges else {}
            self._slack_of = {code: {n: r for n, r in sorted(ranges.items()) if now.get(n, 0) > r.bits}}
        return self._slack_of[code]

    def narrow_lines(self, code: str, region=None) -> dict:
        """{0-based line: [widths]} of the register declarations of `code` whose every name has headroom
        under the reference's testbench (slack), with the narrower widths worth offering."""
        slack, out = self.slack(code), {}
        for i, line in enumerate(code.splitlines()):
            got = narrow_target(line)
            if not got or (region and not region[0] <= i + 1 <= region[1]) or not all(n in slack for n in got[1]):
                continue
            widths = narrow_widths(got[0], max(slack[n].bits for n in got[1]))
            if widths:
                out[i] = widths
        return out

    def transform_options(self, code: str, sid=None, menu: int | None = MENU) -> list:
        """The library's options on a design (rtl_agent.transforms), the first `menu` of them (all: None) not
        remembered for parent `sid`; computed once per design text. A kind that cannot read the design is logged
        and left out."""
        if code not in self._tx_options:
            wanted = None if self.cfg.transforms in ("", "all", "auto") else \
                tuple(k.strip() for k in self.cfg.transforms.split(","))
            self._tx_options[code] = transforms.options(self.design(code), wanted,
                                                        log=lambda k, why: self.skipped.setdefault(k, why))
        skip = self.remembered(sid)
        return [o for o in self._tx_options[code] if o.label not in skip][:menu]

    def ranker(self, chooser: str = "learned"):
        """The chooser trained on verified outcomes, loaded once per run: the logistic ranker (ranker.py) or,
        for `lm`, the bundled model with the `choose` adapter (choose_lm.py); both order(labels, kinds, estimates)."""
        if self._ranker is None:
            if chooser == "lm":
                from ..choose_lm import LMChooser
                self._ranker = LMChooser.load()
            else:
                from ..ranker import Ranker
                self._ranker = Ranker.load()
        return self._ranker

    def estimated(self, parent: str, opts: list) -> list:
        """Each option's estimated PPA ratio over the parent (synthesis and STA alone: estimate.py), None where
        it did not apply or gave no estimate; designs are estimated once per run."""
        from ..estimate import Estimator
        if self._estimator is None:
            self._estimator = Estimator(self._env.job, self.top)
        children = []
        for o in opts:
            try:
                children.append(transforms.apply(self.design(parent), o))
            except Exception:      # noqa: BLE001 - a transformation is untrusted code: no design, no estimate
                children.append(None)
        return self._estimator.ratios(parent, children)

    def remembered(self, sid) -> set:
        """With option_memory: the transformation labels not to offer on parent `sid` again: those drawn on it
        in earlier steps (their designs are known), and those that failed the flow on it or on an ancestor
        (an unsafe idle or a wrong narrow stays wrong below). Kept in memory: a resumed run starts afresh."""
        if not self.cfg.option_memory or sid is None:
            return set()
        out, s = set(self._drawn.get(sid, ())), sid
        while s is not None:
            out |= self._failed.get(s, set())
            s = self.state(s).parent
        return out

    def record(self, parent, label: str, failed: bool):
        """A transformation drawn on `parent` (and whether its design failed the flow), for remembered()."""
        self._drawn.setdefault(parent, set()).add(label)
        if failed:
            self._failed.setdefault(parent, set()).add(label)

    # ---- prompt ------------------------------------------------------------------------------------------
    def fits(self, msgs, prefill: str = "") -> tuple[int, int]:
        """(prompt tokens, budget): the prompt, with the answer's prefill (the server counts it as input),
        must leave room for max_tokens of answer."""
        count, budget = prompt_budget(self._env.policy, self.cfg.max_tokens)
        return count(msgs + [{"role": "assistant", "content": prefill}] if prefill else msgs), budget

    def prefill(self, action: str, spec: bool = False, parent: str | None = None) -> str:
        policy = self._env.policy
        if not self.cfg.prefill or (policy is not None and not getattr(policy, "prefill_ok", False)):
            return ""
        task = self._env.task
        if spec:                        # writing from the spec: the task's interface is the header
            return prompts.rtl_prefill(task.top, task.ports)
        head = prompts.parent_header(parent, task.top) if parent and action == "full" and self.cfg.header \
            else None
        return f"```verilog\n{head}" if head else prompts.prefill_for(action, task.top)

    @staticmethod
    def stop(action: str, prefill: str):
        """An edit ends at the closing fence when the prefill opened it, else after its first block;
        a full design at cfg.stop (endmodule)."""
        if action == "full":
            return None
        if prefill:
            return "```"
        return ">>>>>>> REPLACE" if action == "diff" else None

    def view(self, p: dict, action: str):
        """The design whole with the full report; else whole with a brief report; else a focus region
        (brief report) as large as fits. Room is kept for the largest prefill an action here can have."""
        longest = max(p["code"].splitlines() or [""], key=len)
        reserve = self.prefill(action, parent=p["code"]) + f"{longest}\n=======\n{longest}\n"
        built, notes = {}, [r.text(n) for n, r in self.slack(p["code"]).items()]

        def make(view, brief):
            return prompts.edit_prompt(self.spec, view, p.get("report"), self.top, action, brief=brief, notes=notes)

        def fits_with(brief):
            def fits(view):
                msgs = built[id(view)] = make(view, brief)
                n, budget = self.fits(msgs, reserve)
                return n <= budget
            return fits
        whole = focus.View("whole", p["code"], None, len(p["code"].splitlines()))
        if fits_with(False)(whole):
            return whole, built[id(whole)]
        view = focus.choose(p["code"], self.top, p.get("report"), fits_with(True))
        return view, built.get(id(view)) or make(view, True)

    # ---- groups --------------------------------------------------------------------------------------
    def spec_group(self, sid, n: int) -> Group:
        """A fresh design from the specification alone (the task's header prefilled)."""
        t = self._env.task
        msgs, pre = prompts.rtl_prompt(t.spec, t.top, self._env.port_dirs), self.prefill("full", spec=True)
        count, budget = self.fits(msgs, pre)
        return Group(msgs, n, sid, pre,
                     {"mode": "spec", "prompt_tokens": count, "budget": budget, "action": "full", "action_kind": "spec",
                      "region": None})

    def edit_group(self, sid, n, kind, action, view, msgs, pre, stop, target=None, one_line=False, ban=(),
                   choices=()) -> Group:
        """The Group of an edit-style kind, with what events.jsonl and candidates.csv record of its prompt."""
        count, budget = self.fits(msgs, pre)
        return Group(msgs, n, sid, pre,
                     {"mode": view.mode, "prompt_tokens": count, "budget": budget, "action": action, "action_kind": kind,
                      "region": list(view.region) if view.region else None,
                      "target_line": None if target is None else target + 1,
                      **({"line_edit": True} if one_line else {}), **({"ban": list(ban)} if ban else {}),
                      **({"choices": list(choices)} if choices else {})},
                     stop, ban, choices, explore=self.explored(n, len(choices)))

    def explored(self, n: int, options: int) -> int:
        """How many of a choice group's n draws are uniform (--explore): at least one when exploring, never the
        whole group (the policy keeps its own top pick), none when the group holds every option anyway."""
        if not self.cfg.explore or n < 2 or options <= n:
            return 0
        return min(n - 1, max(1, round(n * self.cfg.explore)))

    # ---- answers -------------------------------------------------------------------------------------
    def extract_answer(self, text: str, group=None, attempt: Attempt | None = None) -> Candidate | Retry:
        """The candidate: value {"code": Verilog or None, "action": full|diff, "applied", "how", "error",
        "repaired", "duplicate"}. A full answer is the module in it (None when there is nothing worth
        sending to the tools: no module, or a truncated one; other doubts are left to the EDA stages).
        An edit is applied to the parent; when it does not apply it is re-prompted (a Retry) up to
        cfg.repair times with its error and the closest lines."""
        info = (group.info if group is not None else None) or {}
        retries = attempt.retries if attempt else 0
        parent = self.parent_code(group)
        action = info.get("action", "full")
        out = {"code": None, "action": action, "applied": None, "how": [], "error": "", "repaired": retries,
               "duplicate": False}
        if action == "full":
            out["code"] = self._verilog(text)
        else:
            region = tuple(info["region"]) if info.get("region") else None
            if info.get("line_edit") and not retries:   # the sample stopped at its line's end: close the block
                text = text.rstrip("\n") + "\n>>>>>>> REPLACE\n```"
            res = edits.apply_blocks(parent, edits.parse_blocks(text), region=region)
            if not res.applied and attempt is not None and retries < self.cfg.repair:
                msgs = prompts.repair_prompt(attempt.prompt, text, res.error, res.closest)
                pre = self.prefill("diff")
                n, budget = self.fits(msgs, pre)
                if n <= budget:
                    return Retry(msgs, pre, self.stop("diff", pre))
            out.update(applied=res.applied, how=res.how, error=res.error)
            if res.applied:
                out["code"] = self._verilog(res.code) if region is None else res.code
                if out["code"] is None:
                    out["error"] = "the edited design holds no complete module"
        if out["code"] is not None and self.same(out["code"], parent):
            out["duplicate"] = True
        return Candidate(out)

    def _verilog(self, text: str) -> str | None:
        ex = prompts.extract_verilog(text, self.top, self._env.port_dirs)
        if not ex.code.strip() or any("truncated" in r for r in ex.reasons):
            return None
        return ex.code
