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
