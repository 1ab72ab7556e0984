"""simt-sim: a cycle-level SIMT GPU simulator with execution-mask stacks.

The Python API (docs/api.md) is defined in simt_sim/api.py and imported on first use of one of
its names, so that `import simt_sim` does not import numba and the engine.
"""
from typing import TYPE_CHECKING

from simt_sim.errors import InputError, Interrupted, RuntimeFault, SimError

__version__ = "0.1.0"

API_NAMES = ("Launch", "Result", "allocated_registers", "load_config", "load_program", "run_functional", "run_program",
             "simulate")
__all__ = [*API_NAMES, "InputError", "Interrupted", "RuntimeFault", "SimError"]

if TYPE_CHECKING:
    from simt_sim.api import (Launch, Result, allocated_registers, load_config, load_program, run_functional,
                              run_program, simulate)


def __getattr__(name: str):
    if name in API_NAMES:
        from simt_sim import api
        return getattr(api, name)
    raise AttributeError(f"module 'simt_sim' has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted({*globals(), *API_NAMES})
