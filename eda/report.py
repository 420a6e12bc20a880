"""Result types shared by every flow. A stage has one status from STATUSES."""
import json
import re
from dataclasses import asdict, dataclass, field

STATUSES = ("pass", "fail", "timeout", "error", "skipped", "rejected")
# The equivalence stage reports its verdict as its status: proven, bounded(N),
# cosim(K vectors) let the flow go on (`rtl-agent eval` passes with an unproven verdict);
# counterexample and unknown(...) (timeout, replay-mismatch) do not.  Only `proven` earns a
# reward or counts as passing in `regress --equiv`: bounded/cosim are "unproven" (is_unproven).
EQUIV_PASS = ("proven", "bounded", "cosim")
EQUIV_UNPROVEN = ("bounded", "cosim")


def is_pass(status: str) -> bool:
    return status == "pass" or status.startswith(EQUIV_PASS)


def is_proven(status: str) -> bool:
    """An equivalence verdict that is a proof (SAT, induction, ABC dprove, exhaustive simulation)."""
    return status.startswith("proven")


def is_unproven(status: str) -> bool:
    """An equivalence verdict that lets the flow go on without a proof: bounded(N), cosim(K)."""
    return status.startswith(EQUIV_UNPROVEN)


def is_failure(status: str) -> bool:
    """A stage status that stops the flow: neither passing nor skipped."""
    return not is_pass(status) and status != "skipped"


@dataclass
class Diagnostic:
    message: str
    file: str | None = None
    line: int | None = None
    severity: str = "error"

    def __str__(self):
        loc = f"{self.file}:{self.line}: " if self.file and self.line else (f"{self.file}: " if self.file else "")
        return f"{loc}{self.severity}: {self.message}"


@dataclass
class StageResult:
    name: str
    status: str
    seconds: float = 0.0
    tool: str = ""
    version: str = ""
    diagnostics: list = field(default_factory=list)   # list[Diagnostic]
    data: dict = field(default_factory=dict)          # stage-specific numbers and facts
    log: str = ""                                     # tail of the tool output

    @property
    def ok(self) -> bool:
        return is_pass(self.status)

    def to_dict(self) -> dict:
        d = asdict(self)
        d["diagnostics"] = [asdict(x) if isinstance(x, Diagnostic) else x for x in self.diagnostics]
        return d

    @classmethod
    def from_dict(cls, d: dict) -> "StageResult":
        d = dict(d)
        d["diagnostics"] = [Diagnostic(**x) for x in d.get("diagnostics", [])]
        return cls(**d)


@dataclass
class Report:
    """Everything `evaluate` learned about one candidate. Keys of to_dict() are a stable API."""
    status: str = "pass"
    top: str = ""
    pdk: str = ""
    stages: dict = field(default_factory=dict)        # name -> StageResult, in run order
    area_um2: float | None = None
    delay_ns: float | None = None
    power_w: float | None = None
    ppa: float | None = None                          # area_um2 * delay_ns * power_w
    cached: bool = False
    seconds: float = 0.0
    isolation: str = ""                               # "bwrap" (tools sandboxed) or "off" (eda.sandbox)

    def add(self, st: StageResult):
        if is_pass(st.status):
            # a passing stage's notes (the proof method that closed after induction did not, ...) are not errors:
            # a report never shows `pass` beside an `error` (a stage that finds an error fails instead)
            st.diagnostics = [Diagnostic(d.message, d.file, d.line, "info") if isinstance(d, Diagnostic) and
                              d.severity == "error" else d for d in st.diagnostics]
        self.stages[st.name] = st
        if is_failure(st.status) and self.status == "pass":
            self.status = "fail" if st.status.startswith(("counterexample", "unknown")) else st.status

    @property
    def ok(self) -> bool:
        return self.status == "pass"

    @property
    def failed_stage(self) -> str | None:
        for n, s in self.stages.items():
            if is_failure(s.status):
                return n
        return None

    def stage(self, name: str) -> StageResult | None:
        """The stage's result, or None when it did not run."""
        return self.stages.get(name)

    @property
    def equiv_status(self) -> str | None:
        """The equivalence verdict (proven, bounded(N), counterexample, ...), None without the stage."""
        st = self.stages.get("equiv")
        return st.status if st else None

    @property
    def failure_reason(self) -> str:
        """The first diagnostic of the failing stage ("" when nothing failed)."""
        fs = self.failed_stage
        return "; ".join(str(d) for d in self.stages[fs].diagnostics[:1]) if fs else ""

    @classmethod
    def from_dict(cls, d: dict) -> "Report":
        return cls(status=d["status"], top=d.get("top", ""), pdk=d.get("pdk", ""),
                   stages={k: StageResult.from_dict(v) for k, v in (d.get("stages") or {}).items()},
                   area_um2=d.get("area_um2"), delay_ns=d.get("delay_ns"), power_w=d.get("power_w"),
                   ppa=d.get("ppa"), cached=bool(d.get("cached")), seconds=d.get("seconds") or 0.0,
                   isolation=d.get("isolation", ""))

    def to_dict(self) -> dict:
        return {"status": self.status, "failed_stage": self.failed_stage, "top": self.top, "pdk": self.pdk,
                "area_um2": self.area_um2, "delay_ns": self.delay_ns, "power_w": self.power_w, "ppa": self.ppa,
                "ppa_units": "um2*ns*W", "cached": self.cached, "seconds": round(self.seconds, 4),
                "isolation": self.isolation,
                "stages": {k: v.to_dict() for k, v in self.stages.items()}}

    def to_json(self) -> str:
        return json.dumps(self.to_dict(), indent=2)


_DIAG_RES = [
    # iverilog: file.v:12: syntax error
    # (not `file.v:12:5:`: a column is Verilator's, on the continuation lines of a message already read)
    re.compile(r"^(?P<file>[^:\s]+\.s?v):(?P<line>\d+):(?!\d+:)\s*(?P<msg>.*)$"),
    # verilator: %Error: file.v:12:5: message
    re.compile(r"^%(?P<sev>Error|Warning)[^:]*:\s*(?P<file>[^:\s]+):(?P<line>\d+):(?:\d+:)?\s*(?P<msg>.*)$"),
    # yosys: ERROR: ... / file.v:12: ERROR: ...
    re.compile(r"^(?P<file>[^:\s]+\.s?v):(?P<line>\d+):\s*ERROR:\s*(?P<msg>.*)$"),
    re.compile(r"^ERROR:\s*(?P<msg>.*)$"),
    re.compile(r"^%Error:\s*(?P<msg>.*)$"),
]


def parse_diagnostics(text: str, limit: int = 20, only_errors: bool = True) -> list:
    """Turn tool output into Diagnostic records (file basename, line, message)."""
    seen, out = set(), []
    for raw in text.splitlines():
        line = raw.strip()
        for rx in _DIAG_RES:
            m = rx.match(line)
            if not m:
                continue
            g = m.groupdict()
            msg = g["msg"].strip()
            if msg.startswith(":"):
                break  # Icarus continuation line of the previous message
            sev = (g.get("sev") or ("warning" if msg.lower().startswith(("warning", "sorry")) else "error")).lower()
            if msg.lower().startswith(("warning:", "error:")):
                msg = msg.split(":", 1)[1].strip()
            if only_errors and sev == "warning":
                break
            f = g.get("file")
            f = f.rsplit("/", 1)[-1] if f else None
            ln = int(g["line"]) if g.get("line") else None
            key = (f, ln, msg)
            if key not in seen:
                seen.add(key)
                out.append(Diagnostic(msg, f, ln, sev))
            break
        if len(out) >= limit:
            break
    return out
