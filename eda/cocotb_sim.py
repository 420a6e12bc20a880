"""The sim stage for cocotb testbenches (a Python test module instead of an HDL testbench).

cocotb's runner (cocotb_tools.runner.get_runner) builds and runs the design on Icarus or Verilator in a
subprocess (`python -m eda.cocotb_run`) that goes through `eda.sandbox.run` like every simulation, in
the same work dir and under the same limits. The verdict comes from cocotb's xUnit results file:
pass when at least one test ran and none failed or errored; failing test names and their assertion
messages become diagnostics.
"""
import os
import sys
import time
import xml.etree.ElementTree as ET
from pathlib import Path

from .config import REPO
from .report import Diagnostic, StageResult, parse_diagnostics
from .sandbox import Limits, run
from .sources import HDL_SUFFIXES, write_all
from .tools import get_simulator

RESULTS = "results.xml"


def test_module_of(tb_texts: dict) -> str | None:
    """The Python test module among the testbench files: the first test_*.py, else the first .py."""
    pys = [Path(n).name for n in tb_texts if str(n).endswith(".py")]
    mod = next((p for p in pys if p.startswith("test_")), pys[0] if pys else None)
    return mod[:-3] if mod else None


def runner_env() -> dict:
    """What the runner subprocess needs: the venv's python on PATH (Verilator's make runs python),
    the project's `eda` package importable."""
    from .tools import setup_env
    setup_env()
    path = os.pathsep.join([str(Path(sys.executable).parent), os.environ.get("PATH", "/usr/bin:/bin")])
    return {"PATH": path, "PYTHONPATH": str(REPO), "PYTHONDONTWRITEBYTECODE": "1", "COCOTB_ANSI_OUTPUT": "0"}


def runner_cmd(step: str, sim: str, top: str, module: str | None = None, sources=(), timescale="1ns/1ps") -> list:
    cmd = [sys.executable, "-m", "eda.cocotb_run", step, "--sim", sim, "--top", top, "--timescale", timescale]
    if module:
        cmd += ["--module", module, "--results", RESULTS]
    return cmd + (["--src", *map(str, sources)] if sources else [])


def read_results(path: Path) -> dict:
    """{tests, failed, errored, skipped, failures: [(test, message, detail)]} from cocotb's xUnit file."""
    root = ET.parse(path).getroot()
    out = {"tests": 0, "failed": 0, "errored": 0, "skipped": 0, "failures": []}
    for tc in root.iter("testcase"):
        out["tests"] += 1
        name = tc.get("name", "?")
        for kind in ("failure", "error"):
            for el in tc.findall(kind):
                out["failed" if kind == "failure" else "errored"] += 1
                out["failures"].append((name, (el.get("message") or "").strip(), (el.text or "").strip()))
        if tc.find("skipped") is not None:
            out["skipped"] += 1
    return out


def _failure_diags(res: dict) -> list:
    diags = []
    for name, msg, detail in res["failures"][:10]:
        # the assertion line of the traceback: `File "test_x.py", line 12, in test_add` + `AssertionError: ...`
        file = line = None
        for ln in detail.splitlines():
            s = ln.strip()
            if s.startswith("File \"") and ", line " in s:
                f = s.split("\"", 2)[1]
                if not f.startswith("/") or Path(f).suffix == ".py" and "site-packages" not in f:
                    file, line = Path(f).name, int(s.split(", line ", 1)[1].split(",", 1)[0])
        last = next((ln.strip() for ln in reversed(detail.splitlines()) if ln.strip()), "")
        text = "; ".join(ln.strip() for ln in (msg or last or "failed").splitlines() if ln.strip())
        if last and last not in text and "Error" in last:
            text = f"{text} ({last[:160]})"
        diags.append(Diagnostic(f"cocotb test {name} failed: {text[:300]}", file, line))
    return diags


def simulate_cocotb(sources: dict, tb_texts: dict, dut_top: str, wd: Path, lim: Limits,
                    simulators=("icarus", "verilator"), timescale: str = "1ns/1ps", rule=None) -> StageResult:
    t0 = time.monotonic()
    module = test_module_of(tb_texts)
    name = rule.name if rule else "cocotb"
    base = {"tb_top": dut_top, "test_module": module, "verdict_rule": name, "tried": []}
    if not module:
        return StageResult("sim", "error", time.monotonic() - t0, "cocotb", _version(),
                           [Diagnostic("cocotb testbench: no Python test module among the testbench files")], base)
    hdl = write_all(sources, wd) + [p for p in write_all(tb_texts, wd) if p.suffix in HDL_SUFFIXES]
    env = runner_env()
    logs = []
    for sim in simulators:
        tool = get_simulator(sim)
        base["tried"].append(sim)
        b = run(runner_cmd("build", sim, dut_top, sources=[p.name for p in hdl], timescale=timescale), wd,
                Limits(wall_s=max(lim.wall_s, 180 if sim == "verilator" else 30), cpu_s=max(lim.cpu_s, 300),
                       mem_mb=max(lim.mem_mb, 4096), out_mb=512), env=env, import_pkgs=("eda",))
        logs.append(b.out)
        if not b.ok:
            continue   # cannot build with this simulator: try the next
        (wd / RESULTS).unlink(missing_ok=True)
        r = run(runner_cmd("test", sim, dut_top, module=module, timescale=timescale), wd, lim, env=env,
                import_pkgs=("eda",))
        out = r.out
        data = dict(base, simulator=sim, run_s=round(r.seconds, 4))
        ver = f"{tool.version()} / cocotb {_version()}"
        if r.timed_out or r.limit in ("cpu", "wall"):
            return StageResult("sim", "timeout", time.monotonic() - t0, f"cocotb+{sim}", ver,
                               [Diagnostic(f"cocotb simulation stopped after {lim.wall_s:g} s wall / {lim.cpu_s} s CPU "
                                           "(hang, endless loop or a test that never finishes)")], data, out[-2000:])
        if r.limit:
            return StageResult("sim", "error", time.monotonic() - t0, f"cocotb+{sim}", ver,
                               [Diagnostic(f"cocotb simulation stopped by the {r.limit} limit")], data, out[-2000:])
        res_file = wd / RESULTS
        if not res_file.is_file():
            diags = [Diagnostic(f"cocotb wrote no results file (exit status {r.rc})")]
            diags += [Diagnostic(ln.strip()[:200], severity="info") for ln in out.splitlines()
                      if "Error" in ln or "error" in ln][:5]
            return StageResult("sim", "fail", time.monotonic() - t0, f"cocotb+{sim}", ver, diags, data, out[-4000:])
        try:
            res = read_results(res_file)
        except ET.ParseError as e:
            return StageResult("sim", "fail", time.monotonic() - t0, f"cocotb+{sim}", ver,
                               [Diagnostic(f"cocotb results file is not valid XML: {e}")], data, out[-4000:])
        data.update({k: res[k] for k in ("tests", "failed", "errored", "skipped")})
        bad = res["failed"] + res["errored"]
        if res["tests"] == 0:
            status, diags = "fail", [Diagnostic("cocotb ran no tests (no @cocotb.test in the module?)")]
        elif bad:
            status = "fail"
            diags = [Diagnostic(f"cocotb: {bad} of {res['tests']} test(s) failed")] + _failure_diags(res)
        else:
            status, diags = "pass", []
        data["reason"] = (f"cocotb: {res['tests'] - bad}/{res['tests']} tests passed" if res["tests"]
                          else "cocotb ran no tests")
        return StageResult("sim", status, time.monotonic() - t0, f"cocotb+{sim}", ver, diags, data, out[-4000:])
    log = "\n".join(logs)
    diags = parse_diagnostics(log) or [Diagnostic("cocotb could not build the design with any simulator: "
                                                  + (log.strip().splitlines() or ["(no output)"])[-1][:200])]
    return StageResult("sim", "fail", time.monotonic() - t0, "cocotb", _version(), diags,
                       dict(base, simulator=None, compile_error=True), log[-4000:])


def _version() -> str:
    try:
        from importlib.metadata import version
        return version("cocotb")
    except Exception:  # noqa: BLE001 - a version is information
        return "?"
