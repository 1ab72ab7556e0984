"""The SASS-mode values of configs/h100.yaml are what the t-* microbenchmarks give
(simt_sim/calibrate/sass_fit.py): re-fitting them by bisection with the simulator reproduces the
config (each fit is some ten simulations: --run-slow)."""
from __future__ import annotations

import pytest

from simt_sim.calibrate import sass_fit as F
from simt_sim.machine.config import load_config


@pytest.mark.slow
@pytest.mark.parametrize("fit", [pytest.param(f, id=f.key) for f in F.FITS])
def test_the_config_holds_the_value_its_probe_gives(fit):
    value, h100, simulated = F.fit_value(fit)
    assert value == load_config("h100").get(fit.key)
    assert simulated == pytest.approx(h100, rel=0.03)


def test_unknown_value_is_refused(capsys):
    assert F.main(["sass.no_such_value"]) == 2
    assert "known values" in capsys.readouterr().err
