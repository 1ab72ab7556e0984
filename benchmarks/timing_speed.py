"""Timing-model speed: simulated warp-instructions and cycles per wall-clock second, and the
peak memory allocated during the run, per workload and grid size, on the h100 config (all 132
SMs, one host core).  JIT warm-up is reported apart.

    python benchmarks/timing_speed.py            # the table
    python benchmarks/timing_speed.py --quick    # the smaller grid only
    python benchmarks/timing_speed.py --isa sass # the same kernels as ptxas's sm_90 SASS
"""
import sys
import time
import tracemalloc
from pathlib import Path

import numpy as np

import simt_sim

ROOT = Path(__file__).resolve().parents[1]


def compute(n):       # 100 iterations of 4 FFMA, FMUL, FADD and 5 integer/branch ops per thread
    return "benchmarks/kernels/ffma_loop.ptx", ["o", 100], {"o": np.zeros(n, np.float32)}


def memory(n):        # saxpy: two loads and a store per thread, streaming from DRAM
    return "tests/cuda/saxpy.ptx", [2.0, "x", "y", n], {"x": np.ones(n, np.float32), "y": np.ones(n, np.float32)}


def divergent(n):     # a while loop whose trip count (0..63) differs per thread
    trips = (np.arange(n) * 7919 % 64).astype(np.int32)
    return "tests/cuda/while_loop.ptx", ["t", "o", n], {"t": trips, "o": np.zeros(n, np.int32)}


WORKLOADS = [("compute-bound", compute, (8192, 65536)), ("memory-bound", memory, (65536, 524288)),
             ("divergent", divergent, (8192, 65536))]


ISA = sys.argv[sys.argv.index("--isa") + 1] if "--isa" in sys.argv[:-1] else "ptx"


def run(path, args, bufs, n, cfg, trace_memory=True):
    """(result, seconds, peak bytes): the timed run goes untraced, because tracemalloc slows every
    allocation; the peak comes from a second, identical run under tracemalloc."""
    # the PTX by default: figures comparable across versions
    prog = simt_sim.load_program(ROOT / path, isa=ISA)
    # registers: the PTX declarations' count, as the versions before ptxas's counts simulated, so
    # that side_by_side.py compares the same simulation
    launch = simt_sim.Launch(prog, n // 256, 256, args, registers=prog.declared_regs if ISA == "ptx" else None)
    fresh = {k: v.copy() for k, v in bufs.items()}
    t0 = time.perf_counter()
    res = simt_sim.simulate(launch, bufs, cfg)
    dt = time.perf_counter() - t0
    if not trace_memory:    # not while numba compiles: tracemalloc slows compilation about 3x
        return res, dt, 0
    tracemalloc.start()
    simt_sim.simulate(launch, fresh, cfg)
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    return res, dt, peak


def main():
    quick = "--quick" in sys.argv
    cfg = simt_sim.load_config("h100")
    t0 = time.perf_counter()
    for _, make, _ in WORKLOADS:
        path, args, bufs = make(256)
        run(path, args, bufs, 256, cfg, trace_memory=False)
    warm = time.perf_counter() - t0
    print(f"config h100 ({cfg.get('num_sms')} SMs), {ISA.upper()}; JIT warm-up / cache load: {warm:.1f} s (not counted below)")
    print(f"{'workload':<14} {'threads':>8} {'sim cycles':>11} {'warp-insts':>11} {'IPC':>7} {'seconds':>8} "
          f"{'warp-inst/s':>12} {'cycles/s':>10} {'peak MiB':>9}")
    for name, make, sizes in WORKLOADS:
        for n in sizes[:1] if quick else sizes:
            path, args, bufs = make(n)
            res, dt, peak = run(path, args, bufs, n, cfg)
            m = res.metrics[0]
            print(f"{name:<14} {n:>8} {res.cycles:>11} {m['warp_instructions']:>11} {m['ipc']:>7.1f} {dt:>8.2f} "
                  f"{m['warp_instructions'] / dt:>12,.0f} {res.cycles / dt:>10,.0f} {peak / 2**20:>9.1f}")


if __name__ == "__main__":
    main()
