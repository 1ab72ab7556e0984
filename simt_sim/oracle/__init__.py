"""Test oracle: an independent, per-thread scalar interpreter of encoded programs."""
from simt_sim.oracle.interpreter import OracleResult, round_rational, run_oracle  # noqa: F401
