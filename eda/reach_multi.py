"""All open points of eda.reach at once: one multi-output bounded run, counterexamples drawn in one ABC
process, and a bit-parallel AIGER simulation that tells which other points each counterexample hits.

    hits = joint_bmc(folder, "wit.aig", bound=40, secs=10)        # {output: frame} asserted within the bound
    wit = cover_outputs(folder, "wit.aig", wanted, hits, secs)    # {output: cex path}, each output's witness

`bmc3 -a` solves every output of wit.aig in one unrolling (ABC keeps one counterexample, so only the
output and frame are read from it). For the outputs it asserted, counterexamples are drawn a batch at a time
(`cone -O k; bmc3 -F frame+1; write_cex` for each, in one ABC process), then all of them are simulated on
the AIG together (one bit per counterexample): an output any of them drives to 1 needs no counterexample
of its own. What a counterexample hits here is a claim about the model; eda.reach_replay's replay under
Verilator still decides which points count."""
import os
import re
from pathlib import Path

from .reach_model import init_frames
from .sandbox import Limits, run
from .tools import ABC

_OUT = re.compile(r"^Output\s+(\d+) was asserted in frame\s+(\d+)", re.M)
BATCH = 4               # counterexamples drawn per ABC process (then simulated: most outputs need none of their own)


WALL_X = 6              # a tool run's wall limit is this many times its CPU share (a loaded machine slows it)


def now() -> float:
    """The formal budget's clock: CPU seconds of this process and of its finished tool runs (Yosys, ABC), so
    what the budget decides does not depend on the machine's load; each run's own CPU is capped by its
    rlimit, its wall time at WALL_X times that."""
    t = os.times()
    return t.user + t.system + t.children_user + t.children_system


def _limits(secs: float) -> Limits:
    return Limits(wall_s=max(1.0, secs) * WALL_X + 5, cpu_s=int(secs) + 2, mem_mb=4096, out_mb=64)


def joint_bmc(folder: Path, aig: str, bound: int, secs: float) -> tuple:
    """({output: first frame asserted}, complete): complete when every frame up to `bound` was searched."""
    if secs < 1:
        return {}, False
    # -x (keep the counterexamples): without it this ABC stops after the first frame that asserts an output
    r = run(ABC.commands_cmd(f"read {aig}; strash; bmc3 -a -x -d -F {bound} -T {int(secs)}"), folder,
            _limits(secs + 3))
    hits = {int(m.group(1)): int(m.group(2)) for m in _OUT.finditer(r.out)}
    m = re.search(r"after (\d+) frames", r.out)
    return hits, bool(r.ok and m and int(m.group(1)) >= bound)


def read_aig(path: Path):
    """Binary AIGER: (inputs, latches [(lit, next, init)], outputs [lit], ands [(lhs, a, b)])."""
    data = path.read_bytes()
    head, pos = data[:data.index(b"\n")].split(), data.index(b"\n") + 1
    m, i, nl, no, na = (int(x) for x in head[1:6])
    lines = data[pos:].split(b"\n", nl + no)
    latches = []
    for k in range(nl):
        f = lines[k].split()
        latches.append((2 * (i + k + 1), int(f[0]), int(f[1]) if len(f) > 1 else 0))
    outs = [int(x.split()[0]) for x in lines[nl:nl + no]]
    pos += sum(len(x) + 1 for x in lines[:nl + no])
    ands, lhs = [], 2 * (i + nl)
    for _ in range(na):
        lhs += 2
        deltas = []
        for _ in range(2):
            x, sh = 0, 0
            while True:
                b = data[pos]
                pos += 1
                x |= (b & 0x7F) << sh
                sh += 7
                if not b & 0x80:
                    break
            deltas.append(x)
        r0 = lhs - deltas[0]
        ands.append((lhs, r0, r0 - deltas[1]))
    return i, latches, outs, ands


def read_cex(path: Path) -> tuple:
    """write_cex -n: ({(input index, frame): 1} of the inputs set to 1, number of frames)."""
    ones, last = {}, 0
    for m in re.finditer(r"^pi(\d+)@(\d+)=([01])", path.read_text(), re.M):
        last = max(last, int(m.group(2)))
        if m.group(3) == "1":
            ones[(int(m.group(1)), int(m.group(2)))] = 1
    return ones, last + 1


def simulate(aig, cexes: list, frames: int) -> dict:
    """{output: bitmask of the counterexamples (read_cex) that drive it to 1 in one of their frames}; latch
    init 0 unless the AIGER gives 1 (wit.aig: zero-initialised, as Verilator starts). A counterexample counts
    only within its own frames: its replay ends there."""
    n_in, latches, outs, ands = aig
    full = (1 << len(cexes)) - 1
    val = {0: 0}
    for lit, _, init in latches:
        val[lit] = full if init == 1 else 0

    def get(lit):
        v = val[lit & ~1]
        return v ^ full if lit & 1 else v
    hit = {}
    for fr in range(frames):
        alive = sum(1 << j for j, (_, n) in enumerate(cexes) if fr < n)
        for k in range(n_in):
            v = 0
            for j, (c, _) in enumerate(cexes):
                if c.get((k, fr)):
                    v |= 1 << j
            val[2 * (k + 1)] = v
        for lhs, a, b in ands:
            val[lhs] = get(a) & get(b)
        for o, lit in enumerate(outs):
            v = get(lit) & alive
            if v:
                hit[o] = hit.get(o, 0) | v
        nxt = [get(n) for _, n, _ in latches]
        for (lit, _, _), v in zip(latches, nxt):
            val[lit] = v
    return hit


def cover_outputs(folder: Path, aig: str, wanted, hits: dict, deadline: float, per_s: float = 4.0) -> tuple:
    """Counterexamples for the `wanted` outputs that joint_bmc asserted: ({output: cex path}, notes).
    Shallowest first; after each batch the simulation credits every output a drawn one reaches."""
    folder = Path(folder)
    model = read_aig(folder / aig)
    todo = sorted((o for o in wanted if o in hits), key=lambda o: (hits[o], o))
    got, drawn, notes = {}, [], []
    while todo and deadline - now() > 1:
        batch, todo = todo[:BATCH], todo[BATCH:]
        script = "; ".join(f"read {aig}; cone -O {o} -a; strash; bmc3 -F {hits[o] + 1} -T {int(per_s)}; "
                           f"write_cex -n m{o}.cex" for o in batch)
        for o in batch:
            (folder / f"m{o}.cex").unlink(missing_ok=True)
        run(ABC.commands_cmd(script), folder, _limits(min(deadline - now(), per_s * len(batch) + 5)))
        new = [(o, folder / f"m{o}.cex") for o in batch if (folder / f"m{o}.cex").exists()]
        if len(new) < len(batch):
            notes.append(f"{len(batch) - len(new)} counterexample(s) not drawn within {per_s:g} s")
        if not new:
            continue
        drawn += new
        cexes = [read_cex(p) for _, p in drawn]
        frames = max(n for _, n in cexes)
        sim = simulate(model, cexes, frames)
        for o in list(wanted):
            if o in sim and o not in got:
                got[o] = drawn[(sim[o] & -sim[o]).bit_length() - 1][1]
        for o, p in new:
            got.setdefault(o, p)
        todo = [o for o in todo if o not in got]
    return got, notes


def prime(runner, targets, bound: int, share: float = 0.45) -> list:
    """Witnesses for every target at once, into the runner's cache as if bmc3 had run per output: the
    outputs `bmc3 -a` asserted get a drawn (or simulated) counterexample, the ones a complete run did not
    assert get "bound reached" (no per-output bmc3 then). Returns notes."""
    wanted = {o for t in targets for o in t.wit} - set(runner.consts.get("wit.aig", ()))
    left = runner.left()
    if not wanted or left < 2:
        return []
    hits, complete = joint_bmc(runner.folder, "wit.aig", bound, min(20.0, 0.15 * left))
    got, notes = cover_outputs(runner.folder, "wit.aig", wanted, hits,
                               now() + min(90.0, share * runner.left()))
    for o in wanted:
        if o in got:
            runner.cache[("wit.aig", o, "bmc3")] = ("cex", hits.get(o, bound - 1), got[o], "")
        elif complete and o not in hits:
            runner.cache[("wit.aig", o, "bmc3")] = ("undecided", 0, None,
                                                   f"bmc3: no witness within {bound} cycles (bound reached)")
    notes = [f"bmc3 -a over {len(wanted)} witness outputs: {len([o for o in wanted if o in hits])} asserted "
             f"within {bound} cycles{'' if complete else ' (stopped early)'}, {len(got)} given a counterexample "
             f"({len(set(map(str, got.values())))} drawn)"] + notes
    return notes


def why(reason: str) -> str:
    """The class of an undecided point's reason: unmapped | witness rejected | bound reached | x-start only |
    engine limit."""
    r = reason or ""
    if "rejected" in r:
        return "witness rejected"
    if "time limit" in r or "budget spent" in r:
        return "engine limit"
    if "constant 0 in the model" in r and "registers start free" in r:
        return "x-start only"          # no witness from the all-zero start (as Verilator), a trace from free registers
    if "bound" in r or "registers start free" in r:
        return "bound reached"
    if r.startswith(("bmc3", "proof", "pdr", "dprove")) or "undecided" in r:
        return "engine limit"
    return "unmapped"


def vectors(cex: Path, amap: Path, inputs: list, clock, reset, active: int, fflogic: bool) -> list:
    """write_cex -n (pi<k>@<frame>=<bit>) + the AIGER map (input <k> <bit> p<i>) -> per-cycle {input: value}."""
    pi = {}
    for ln in amap.read_text().splitlines():
        f = ln.split()
        if len(f) == 4 and f[0] == "input" and f[3].startswith("p") and f[3][1:].isdigit():
            pi[int(f[1])] = (int(f[3][1:]), int(f[2]))
    frames, last = {}, 0
    for m in re.finditer(r"^pi(\d+)@(\d+)=([01])", cex.read_text(), re.M):
        k, fr, b = int(m.group(1)), int(m.group(2)), int(m.group(3))
        last = max(last, fr)
        if k in pi and b:
            i, bit = pi[k]
            frames.setdefault(fr, {}).setdefault(i, 0)
            frames[fr][i] |= 1 << bit
    n = init_frames(reset, fflogic)
    out = []
    for fr in range(last + 1):
        v = {nm: frames.get(fr, {}).get(i, 0) for i, (nm, w) in enumerate(inputs) if nm != clock or fflogic}
        if fr < n and reset in v:
            v[reset] = active
        if fr < n and fflogic and clock in v:
            v[clock] = 1 if fr == 1 else 0          # as the wrapper forces it
        out.append(v)
    return out


def const_outputs(aig: Path) -> set:
    """Indices of the AIGER outputs that are constant 0 (Yosys simplified the condition away)."""
    data = aig.read_bytes()
    head, _, rest = data.partition(b"\n")
    f = head.split()
    if len(f) < 6:
        return set()
    n_l, n_o = int(f[3]), int(f[4])
    lines = rest.split(b"\n", n_l + n_o)
    outs = lines[n_l:n_l + n_o]
    return {i for i, x in enumerate(outs) if x.strip() == b"0"}
