"""Where a timed run's time goes, per workload of timing_speed.py: the same launch run functionally
(what the instructions do: semantics, registers, memory, SIMT stack) against the timed run (that
plus scheduling, scoreboard, pipes, caches, stall accounting).  Both execute the same
warp-instructions, so the difference is the timing model's own cost.

    python benchmarks/where_time_goes.py
"""
import time

import simt_sim
from timing_speed import ROOT, WORKLOADS


def timed(fn):
    t0 = time.perf_counter()
    res = fn()
    return res, time.perf_counter() - t0


def main():
    cfg = simt_sim.load_config("h100")
    print(f"{'workload':<14} {'threads':>8} {'warp-insts':>11} {'functional s':>13} {'timed s':>8} "
          f"{'semantics share':>16} {'ns/inst timing':>15}")
    for name, make, sizes in WORKLOADS:
        n = sizes[-1]
        path, args, bufs = make(n)
        prog = simt_sim.load_program(ROOT / path, isa="ptx")   # the PTX, as the figures in docs/ measure
        simt_sim.simulate(simt_sim.Launch(prog, 1, 256, make(256)[1]), make(256)[2], cfg)       # warm caches
        simt_sim.run_functional(prog, 1, 256, make(256)[1], make(256)[2], cfg)
        fres, tf = timed(lambda: simt_sim.run_functional(prog, n // 256, 256, args, dict(bufs), cfg))
        tres, tt = timed(lambda: simt_sim.simulate(simt_sim.Launch(prog, n // 256, 256, args, registers=prog.declared_regs), dict(bufs), cfg))
        insts = tres.metrics[0]["warp_instructions"]
        print(f"{name:<14} {n:>8} {insts:>11} {tf:>13.2f} {tt:>8.2f} {tf / tt:>16.0%} "
              f"{(tt - tf) / insts * 1e9:>15.0f}")


if __name__ == "__main__":
    main()
