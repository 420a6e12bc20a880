"""The noise floor's cost (issue 59): kept on disk so a second run pays nothing; each perturbation synthesized
alone and only those that can raise the floor proven; a big design measures fewer perturbations and proves none
that cannot matter (real tools on a small design)."""
import pytest

from designs import load_task
from eda.cache import Cache
from eda.flow import calibrate
from rtl_agent import noise


def reference(name: str, tmp_path):
    t = load_task(name)
    job = t.flow_job(t.pdk).replace(cache=Cache(tmp_path / "eval"))     # a cold cache of this test's own
    job, rep = calibrate(job, t.reference_sources(), against_itself=True)
    assert rep.ok and rep.ppa, rep.failure_reason
    return t, job, rep.ppa


@pytest.mark.requires("iverilog", "yosys", "sta")
def test_the_floor_is_cached_and_equals_the_five_proofs(tmp_path):
    t, job, ppa = reference("popcount16", tmp_path)
    src = t.reference_sources()
    first = noise.noise_floor(job, src, t.top, ppa)
    assert not first.cached and first.seconds > 0
    # popcount16's added zero moved PPA 1.258x (bench/results/noise_neutral.md): it alone was proven
    assert first.floor == pytest.approx(1.258, abs=2e-3) and list(first.ratios) == ["neutral"]
    assert set(first.measured) == set(noise.perturbations("".join(src.values())))
    again = noise.noise_floor(job, src, t.top, ppa)
    assert again.cached and again.seconds == 0 and again.floor == first.floor and again.ratios == first.ratios
    assert list((tmp_path / "noise").rglob("*.json"))                 # beside the job's evaluation cache
    # the old way (every perturbation through the whole flow, as a routing job still does) gives the same floor
    full, _ = noise._measure(job, src, t.top, ppa, noise.KINDS, prove_all=True)
    assert full.floor == first.floor and not full.failed


@pytest.mark.requires("iverilog", "yosys", "sta")
def test_a_big_design_measures_fewer_perturbations_and_proves_none_that_cannot_matter(tmp_path, monkeypatch):
    t, job, ppa = reference("counter8", tmp_path)
    src = t.reference_sources()
    small = noise.noise_floor(job, src, t.top, ppa)
    assert small.ratios and not small.failed and len(small.measured) > len(noise.BIG_KINDS)
    monkeypatch.setattr(noise, "BIG_CELLS", 1)        # every design counts as big
    big = noise.noise_floor(job.replace(cache=Cache(tmp_path / "eval2")), src, t.top, ppa)
    assert not big.cached and set(big.measured) == set(noise.BIG_KINDS)
    # counter8's added zero moves PPA (1.18x): the one mover is proven, `all` (1.0x) is not, the floor is the same
    assert big.floor == small.floor > 1.1 and list(big.ratios) == ["neutral"] and big.measured["all"] == 1.0
    # where nothing moved, a big design proves nothing (a small one proves `all` as a soundness check)
    quiet = noise.noise_floor(job.replace(cache=Cache(tmp_path / "eval3")), src, t.top, ppa, kinds=("all",))
    assert quiet.floor == 1.0 and quiet.ratios == {} and quiet.measured == {"all": 1.0}
