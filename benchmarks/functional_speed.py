"""Functional-engine speed: simulated warp-instructions per second (JIT warm-up reported apart).

First the two PTX kernels the figures in docs/timing.md measure, then workload programs run both
ways: as their PTX and as the sm_90 SASS ptxas makes of them (the default for nvcc programs).

    python benchmarks/functional_speed.py [--programs-only]
"""
import sys
import time

import numpy as np

import simt_sim

CASES = [
    ("compute (saxpy)", "tests/cuda/saxpy.ptx", lambda n: [2.0, "x", "y", n],
     lambda n: {"x": np.ones(n, np.float32), "y": np.ones(n, np.float32)}),
    ("divergent (while loop)", "tests/cuda/while_loop.ptx", lambda n: ["t", "o", n],
     lambda n: {"t": (np.arange(n) % 32).astype(np.int32), "o": np.zeros(n, np.int32)}),
]


PROGRAMS = [("FP32 chains", "programs/workloads/w-ilp-fp32-n32"), ("tiled matmul", "programs/workloads/w-matmul-ilp"),
            ("divergent regroup", "programs/workloads/w-regroup-tree-base"), ("shared reduce", "programs/validation/v-smem-reduce")]


def kernels_table():
    print(f"{'workload':<24} {'threads':>8} {'warp-insts':>11} {'seconds':>8} {'warp-inst/s':>12}")
    for name, path, args, bufs in CASES:
        prog = simt_sim.load_program(path, isa="ptx")   # the PTX, as the figures in docs/ measure
        t0 = time.perf_counter()
        simt_sim.run_functional(prog, 1, 32, args(32), bufs(32))
        warm = time.perf_counter() - t0
        for n in (4096, 65536):
            t0 = time.perf_counter()
            res = simt_sim.run_functional(prog, n // 256, 256, args(n), bufs(n))
            dt = time.perf_counter() - t0
            wi = res.metrics[0]["warp_instructions"]
            print(f"{name:<24} {n:>8} {wi:>11} {dt:>8.3f} {wi / dt:>12.0f}")
        print(f"{'':<24} (first launch incl. JIT / cache load: {warm:.2f} s)")


def programs_table():
    """Each program's manifest as `simt-sim run DIR --functional` runs it, PTX and SASS, warm."""
    print(f"{'program':<40} {'isa':<5} {'warp-insts':>11} {'seconds':>8} {'warp-inst/s':>12}")
    for name, pdir in PROGRAMS:
        for isa in ("ptx", "sass"):
            simt_sim.run_program(pdir, functional=True, isa=isa)          # warm: compile, listings
            t0 = time.perf_counter()
            res = simt_sim.run_program(pdir, functional=True, isa=isa)
            dt = time.perf_counter() - t0
            wi = sum(m["warp_instructions"] for m in res.metrics)
            print(f"{name + ' (' + pdir.split('/')[-1] + ')':<40} {isa:<5} {wi:>11} {dt:>8.3f} {wi / dt:>12.0f}")


def main():
    if "--programs-only" not in sys.argv:
        kernels_table()
        print()
    programs_table()


if __name__ == "__main__":
    main()
