"""Verdict rules as data: how a simulation's output decides pass or fail.

    rule = get_rule("verilog-eval")            # a preset: rtllm, verilog-eval, cocotb
    rule = get_rule({"pass": "ALL OK", "fail": ["ERROR"], "mismatches": r"errors:\\s*(\\d+)"})
    rule = detect_rule(tb_texts)               # from the testbench when no rule is given
    status, reason, facts = rule.judge(output)

A text rule fails on any `fail` match; otherwise it needs its `pass` regex (when it has one) and,
with `mismatches` (a regex whose first group is a count), a count of 0 in the last match.
The `cocotb` preset is decided by cocotb's results file instead (eda.cocotb_sim).
"""
import json
import re
from dataclasses import dataclass

from .sources import HDL_SUFFIXES


class VerdictError(ValueError):
    """A verdict rule is malformed; the message names the field."""


@dataclass(frozen=True)
class VerdictRule:
    name: str                                   # preset name, or "custom"
    pass_re: str | None = None                  # must appear (None: not required)
    fail_res: tuple = ()                        # any match fails
    mismatch_re: str | None = None              # group 1 = mismatch count; must appear and be 0
    kind: str = "text"                          # text | cocotb
    flags: int = re.I | re.M
    diag_re: str | None = None                  # output lines worth reporting on a failure

    def to_dict(self) -> dict:
        return {"name": self.name, "kind": self.kind, "pass": self.pass_re, "fail": list(self.fail_res),
                "mismatches": self.mismatch_re}

    def judge(self, output: str) -> tuple[str, str, dict]:
        """(status, reason, facts) from a testbench's printout."""
        facts: dict = {}
        for rx in self.fail_res:
            m = re.search(rx, output, self.flags)
            if m:
                return "fail", f"testbench reported: {m.group(0).strip()[:120]}", facts
        if self.mismatch_re:
            ms = list(re.finditer(self.mismatch_re, output, self.flags))
            if not ms:
                return "fail", "testbench finished without printing its mismatch count", facts
            m = ms[-1]
            n = int(m.group(1))
            facts["mismatches"] = n
            if m.lastindex and m.lastindex >= 2 and m.group(2) and m.group(2).isdigit():
                facts["samples"] = int(m.group(2))
            if n != 0:
                return "fail", f"testbench reported {m.group(0).strip()[:120]}", facts
        if self.pass_re:
            if not re.search(self.pass_re, output, self.flags):
                return "fail", "testbench finished without printing its pass marker", facts
            return "pass", "testbench printed its pass marker", facts
        return "pass", f"testbench reported {ms[-1].group(0).strip()[:120]}", facts

    def diagnostics(self, output: str, n: int = 5) -> list[str]:
        """Lines of a failing run that say what mismatched (for the report's diagnostics)."""
        if not self.diag_re:
            lines = [ln.strip() for ln in output.splitlines() if re.search(r"fail|error|expected|mismatch", ln, re.I)]
        else:
            lines = [ln.strip() for ln in output.splitlines()
                     if re.search(self.diag_re, ln, re.I) and not re.search(r"\bno mismatches\b", ln, re.I)]
        return [ln[:200] for ln in lines[:n]]


# RTLLM's testbenches print "Your Design Passed" or an error count / "Failed" (unchanged from the
# original hard-wired rule in eda/simulate.py).
RTLLM = VerdictRule("rtllm", pass_re=r"your\s+design\s+passed", fail_res=(
    r"test\s+completed\s+with\s+0*[1-9]\d*\s*(/\s*\d+\s*)?failures?",
    r"^\s*=*\s*(error|failed)\s*=*\s*$",
    r"\bfailed\b",
    r"^\s*error\b",
    r"\d+\s+errors?\b(?<!\b0 errors)",
))
# VerilogEval v2 (NVlabs/verilog-eval): `Mismatches: N in M samples`, pass when N is 0 and the run neither
# errored nor hit the 30 s limit (the sim stage's timeout). The testbench's own `TIMEOUT` line is its
# cycle guard, not a verdict: Prob082_lfsr32's reference prints it with 0 mismatches in 200000 samples
# and passes upstream (153/156 references pass with Icarus 11, shared/README.md); it stays a diagnostic.
VERILOG_EVAL = VerdictRule("verilog-eval", mismatch_re=r"Mismatches:\s*(\d+)\s+in\s+(\d+)\s+samples",
                           fail_res=(r"^\s*(ERROR|FATAL)\b.*$", r"^\s*%(Error|Fatal)\b.*$"),
                           diag_re=r"mismatch|TIMEOUT|error")
COCOTB = VerdictRule("cocotb", kind="cocotb")
PRESETS = {r.name: r for r in (RTLLM, VERILOG_EVAL, COCOTB)}
_KEYS = {"name", "pass", "fail", "mismatches"}


def get_rule(spec) -> VerdictRule | None:
    """A rule from a preset name, a mapping {pass, fail, mismatches} (or its JSON text), a rule, or None."""
    if spec is None or isinstance(spec, VerdictRule):
        return spec
    if isinstance(spec, str):
        s = spec.strip()
        if s in PRESETS:
            return PRESETS[s]
        if s.startswith("{"):
            try:
                spec = json.loads(s)
            except ValueError as e:
                raise VerdictError(f"verdict: not a preset ({', '.join(PRESETS)}) and not valid JSON: {e}") from None
        else:
            raise VerdictError(f"verdict: unknown preset {s!r}; presets: {', '.join(PRESETS)}, or a mapping "
                               "{pass: REGEX, fail: [REGEX...], mismatches: REGEX-with-a-count-group}")
    if not isinstance(spec, dict):
        raise VerdictError(f"verdict: expected a preset name or a mapping, got {spec!r}")
    unknown = set(spec) - _KEYS
    if unknown:
        raise VerdictError(f"verdict: unknown key(s) {sorted(unknown)}; known: {sorted(_KEYS)}")
    fails = spec.get("fail") or []
    fails = [fails] if isinstance(fails, str) else fails
    if not isinstance(fails, list) or not all(isinstance(f, str) for f in fails):
        raise VerdictError("verdict: 'fail' must be a regex or a list of regexes")
    pass_re, mm = spec.get("pass"), spec.get("mismatches")
    if not pass_re and not mm:
        raise VerdictError("verdict: a rule needs a 'pass' regex or a 'mismatches' regex (or both)")
    for k, rx in [("pass", pass_re), ("mismatches", mm)] + [("fail", f) for f in fails]:
        if rx is None:
            continue
        if not isinstance(rx, str):
            raise VerdictError(f"verdict: '{k}' must be a regex string, got {rx!r}")
        try:
            c = re.compile(rx)
        except re.error as e:
            raise VerdictError(f"verdict: '{k}' regex {rx!r} does not compile: {e}") from None
        if k == "mismatches" and c.groups < 1:
            raise VerdictError(f"verdict: 'mismatches' regex {rx!r} needs a group that captures the count")
    return VerdictRule(str(spec.get("name") or "custom"), pass_re=pass_re, fail_res=tuple(fails), mismatch_re=mm)


def is_cocotb_tb(tb_texts: dict) -> bool:
    return any(str(n).endswith(".py") for n in tb_texts)


def detect_rule(tb_texts: dict) -> VerdictRule:
    """The preset a testbench was written for: a Python module is cocotb; a testbench that prints
    `Mismatches: %d in %d samples` is VerilogEval; anything else is judged as RTLLM's."""
    if is_cocotb_tb(tb_texts):
        return COCOTB
    for name, t in tb_texts.items():
        if isinstance(t, str) and str(name).endswith(HDL_SUFFIXES) and re.search(r"Mismatches:\s*%", t):
            return VERILOG_EVAL
    return RTLLM


def rule_key(rule: VerdictRule | None):
    """What of a rule goes into a cache key."""
    return rule.to_dict() if rule else None


__all__ = ["COCOTB", "PRESETS", "RTLLM", "VERILOG_EVAL", "VerdictError", "VerdictRule", "detect_rule", "get_rule",
           "is_cocotb_tb", "rule_key"]


# ---- sealed markers: a pass line the design under test prints itself does not count ----------------
#
# The design runs in the testbench's process and may print anything, e.g. `$display("%s", 144'h596f...)`
# spells "Your Design Passed" from a number (no string literal for the screen to refuse) and `$finish`
# before the testbench reports. So before each run the testbench's own literals that match the rule's
# pass or mismatch-count regex get a per-run random tag (`seal_testbench`); after the run only the text
# after that tag counts for those regexes (`unseal_output`). The tag lives only in the work dir's
# testbench and its compiled form, which a screened design (no file access, no $c, no DPI) cannot read.

SEAL = "[rtla:{}] "


def _marker_res(rule: VerdictRule) -> list:
    return [re.compile(rx, rule.flags) for rx in (rule.pass_re, rule.mismatch_re) if rx]


def seal_testbench(tb_texts: dict, rule: VerdictRule, nonce: str) -> tuple[dict, int]:
    """(testbench texts with the tag in every literal that prints a pass marker or a mismatch count,
    how many literals were tagged)."""
    from .hdl import STRING_RE
    res, tag, count = _marker_res(rule), SEAL.format(nonce), 0
    if not res:
        return dict(tb_texts), 0

    def sub(m):
        nonlocal count
        lit = m.group(0)
        body = re.sub(r"%-?0?\d*[dDhHxXbBoO]", "0", lit[1:-1])   # a format's counts read as 0
        if any(rx.search(body) for rx in res):
            count += 1
            return '"' + tag + lit[1:]
        return lit
    out = {}
    for name, t in tb_texts.items():
        out[name] = STRING_RE.sub(sub, t) if isinstance(t, str) and str(name).endswith(HDL_SUFFIXES) else t
    return out, count


def unseal_output(output: str, rule: VerdictRule, nonce: str) -> str:
    """The run's output as the rule should judge it: on a line with this run's tag only what follows the
    tag; a line without it that matches the pass or mismatch-count regex is replaced by a note."""
    res, tag, lines = _marker_res(rule), SEAL.format(nonce), []
    for ln in output.splitlines():
        if tag in ln:
            lines.append(ln.rsplit(tag, 1)[1])
        elif any(rx.search(ln) for rx in res):
            lines.append("[rtl-agent: a verdict line without the testbench's seal was ignored]")
        else:
            lines.append(ln)
    return "\n".join(lines) + ("\n" if output.endswith("\n") else "")
