"""Shared pytest setup.

Hypothesis profiles: "ci" (the default: few examples, derandomized, so CI runs are deterministic)
and "long" (1000 examples per property).  Choose one with Hypothesis' own pytest option, e.g.
`python -m pytest tests/test_properties.py --hypothesis-profile=long`.
"""
from hypothesis import HealthCheck, settings

settings.register_profile(
    "ci",
    max_examples=25,
    deadline=None,
    derandomize=True,
    database=None,
    suppress_health_check=[HealthCheck.too_slow],
)
settings.register_profile(
    "long",
    max_examples=1000,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)
# The hypothesis pytest plugin loads the --hypothesis-profile choice after this file is imported.
settings.load_profile("ci")


# The run's wall-clock budget (limits.wall_seconds: 30 s for users, so that an endless kernel loop
# stops) would fail the suite's longer simulations on a slow or loaded CI machine: the suite runs
# with no budget, except where a test sets one (tests/test_fault_model.py).  Subprocess runs of the
# CLI keep the user default.
from simt_sim.machine import config as _config  # noqa: E402

USER_WALL_SECONDS = _config.DEFAULTS["limits"]["wall_seconds"]
_config.DEFAULTS["limits"]["wall_seconds"] = 0.0

# Tests that rebuild generated-corpus modules from their seeds (docs/corpus.md) need nvcc and the records.
import shutil  # noqa: E402

import pytest  # noqa: E402

from simt_sim.calibrate import corpus as _corpus  # noqa: E402

needs_nvcc = pytest.mark.skipif(shutil.which("nvcc") is None or not _corpus.RECORDS.exists(),
                                reason="nvcc not installed or no recorded corpus (modules are rebuilt from their seeds)")


# `slow`: exhaustive sweeps beyond what CI needs (every recorded timing microbenchmark's and every
# SASS differential program's mask trace, the long Hypothesis profile's properties).  Skipped unless
# `python -m pytest --run-slow` (CI keeps the suite under its 20-minute budget without them).
def pytest_addoption(parser):
    parser.addoption("--run-slow", action="store_true", help="also run tests marked slow")


def pytest_collection_modifyitems(config, items):
    if config.getoption("--run-slow"):
        return
    import pytest
    skip = pytest.mark.skip(reason="slow sweep: run with --run-slow")
    for item in items:
        if "slow" in item.keywords:
            item.add_marker(skip)
