"""Calibration probes: one registry of what was measured on the GPU to pin the timing model.

Two kinds live here:

- kernel probes, one module each (below: REGISTERED), with their CUDA kernels under tools/kernels/
  and their recordings under references/<gpu>/<probe>.json; `simt-sim probe --list` lists them,
  `simt-sim probe NAME` replays one against its recording, `--fit` picks the config values it pins,
  `--gpu` measures it again (cupy);
- program probes (programs.py): quantities derived from the t-* programs' clocks, recorded by
  `simt-sim hw record` beside each program (`python -m simt_sim.calibrate.probes`).

Each kernel probe module declares its kernels, warp sets, GPU launch, model run, pinned keys and
recording (base.py says how); tests/test_probes_registry.py replays every one.
"""
from __future__ import annotations

import importlib

from simt_sim.errors import InputError

# the kernel probes, by family (the module names are the probe names)
REGISTERED = (
    # pipe rates and latencies: one block, clocks around a loop (alu_rate, control_rate and dmul_phase with
    # Nsight Compute's per-pipe counts and stall reasons recorded beside)
    "xu_rate", "hmma_rate", "ldc_latency", "sreg_delay", "sreg_latency", "alu_rate", "control_rate", "dmul_phase",
    # shared memory (bank_conflicts with Nsight Compute's wavefronts recorded beside); the queue before the LD/ST pipe
    "lds_conflict", "shared_rate", "bank_conflicts", "mio_queue",
    # one warp's work beside its sub-partition's busy neighbours
    "hmma_beside", "mio_beside", "store_beside",
    # when stores read their data; lanes that leave (a partial exit, groups reaching a BSYNC apart)
    "store_read", "stg_read", "partial_exit", "reconverge_groups",
    # the L1 data cache: which lines it keeps, what its miss costs
    "l1_sets", "l1_ways", "l1_miss",
    # global loads: when the second of a warp's two back-to-back LDGs returns, in which order they deliver
    "ldg_pair", "load_pair", "l2_rate",
    # DRAM loads of many SMs in flight at once: streams through flushed lines
    "stream_load",
    # issue under load: dispatch stalls among FMULs, a dependent LDS beside LDS bursts, guarded-off accesses
    "dispatch_stall", "lds_loaded", "pred_off",
    # the matmul's tile loop and the barrier
    "tile_loop",
    # the schedulers' fairness: yield hints on independent chains
    "yield_hints",
    # constant misses of many SMs at once: grids of one block an SM, a launch before the one kept
    "constant_congestion", "ldc_behind_stores",
    # code new to the GPU: a launch's first pass over a block of code against later ones
    "cold_code",
)


def get(name: str):
    """The registered probe NAME (a base.Probe)."""
    from simt_sim.calibrate.probes.base import Probe
    if name not in REGISTERED:
        raise InputError(f"unknown probe {name!r}; known: {', '.join(REGISTERED)}")
    return Probe(importlib.import_module(f"{__name__}.{name}"))


def all_probes() -> list:
    return [get(n) for n in REGISTERED]
