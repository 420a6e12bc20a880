"""The LM chooser (rtl_agent/jobs/optimize/choose_lm.py): the shipped `choose` adapter loads into the bundled model
and orders a menu; its cached-lower-blocks forward equals the model's own; the test-time update raises what paid.
Real model, no mock."""
import pytest
import torch

from rtl_agent.jobs.optimize import choose_lm as C

pytestmark = pytest.mark.slow      # loads the bundled model (a few seconds)

MENU = (["make the conditional update of acc_s at line 12 unconditional arithmetic",
         "acc_r0: no reset no hold",
         "compute a_x*b_x once and share it (2 uses)"],
        ["cond_arith", "idle", "share"],
        [1.04, 1.30, 1.20])


@pytest.fixture(scope="module")
def ch():
    return C.LMChooser.load()


def test_adapter_scores_a_menu_as_the_full_model_would(ch):
    assert ch.meta.get("trained_on"), "the adapter says what it was trained on"
    s = ch.scores(*MENU)
    assert len(s) == 3 and all(torch.isfinite(torch.tensor(s)))
    assert sorted(ch.order(*MENU)) == [0, 1, 2]
    # the top blocks run on cached lower-block outputs: z must be what the whole model gives
    texts = [C.prompt(*x) for x in zip(*MENU)]
    z, _ = ch.top(texts)
    yes, no = (ch.tok.encode(t, add_special_tokens=False)[0] for t in (C.YES, C.NO))
    with torch.no_grad():
        for t, zz in zip(texts, z):
            logits = ch.model(**ch.tok([t], return_tensors="pt")).logits[0, -1]
            assert abs(float(logits[yes] - logits[no]) - float(zz)) < 1e-3


def test_update_raises_what_paid_and_keeps_its_kl_budget(ch):
    a = C.Adapting(ch, *MENU, explore=0.0, seed=0, budget=0.5)
    a.observe(0, 0.2)                       # the cond_arith option paid 22%
    a.observe(1, C.FAIL)                    # the idle one failed the flow
    z = (a.z0 + a.h @ a.v).detach()
    assert float(z[0]) > float(a.z0[0])     # P(pays) of what paid rose
    assert float(z[1] - z[0]) < float(a.z0[1] - a.z0[0])
    kl = float((a.p0 * (a.p0.log() - torch.log_softmax(a._scores().detach(), 0))).sum())
    assert 0 < kl <= 0.5
    assert a.pick() == 2                    # tried options are not drawn again
