"""Deep witnesses for eda.reach: points whose shallow search ran out of frames.

A point a random run misses may need a long prefix: picorv32's multiplier result register falls from 1 to 0
only after two multiplications (about 70 cycles), beyond the 40 frames of the first joint `bmc3 -a`. After
the first per-point passes, the points still undecided with "bound reached" or "engine limit" get one more
joint `bmc3 -a` over their witness outputs to DEEP frames (one unrolling serves them all), counterexamples
drawn and credited as in eda.reach_multi.prime; each still counts only after its replay hits the point."""
from . import reach_multi as rm

DEEP = 160              # frames of the deep joint run


def deeper(runner, targets, verdicts: dict, vec, make) -> list:
    """Witness verdicts (built by make(target, frames, vectors)) into `verdicts` for the undecided targets
    a deep joint bmc3 reaches; returns notes."""
    todo = {o: t for t in targets for o in t.wit
            if t.key in verdicts and verdicts[t.key].status == "undecided"
            and rm.why(verdicts[t.key].reason) in ("bound reached", "engine limit")}
    todo = {o: t for o, t in todo.items() if o not in runner.consts.get("wit.aig", ())}
    left = runner.left()
    if not todo or left < 4:
        return []
    hits, complete = rm.joint_bmc(runner.folder, "wit.aig", DEEP, min(30.0, 0.3 * left))
    want = {o for o in todo if o in hits}
    got, notes = rm.cover_outputs(runner.folder, "wit.aig", want, hits, rm.now() + min(60.0, 0.3 * runner.left()))
    done = set()
    for o, cex in got.items():
        t = todo[o]
        if t.key not in done:
            verdicts[t.key] = make(t, hits.get(o, DEEP - 1) + 1, vec(cex))
            done.add(t.key)
    return [f"deep bmc3 -a to {DEEP} frames over {len(todo)} outputs of {len({t.key for t in todo.values()})} "
            f"undecided points: {len(want)} asserted{'' if complete else ' (stopped early)'}, "
            f"{len(done)} points given a witness"] + notes
