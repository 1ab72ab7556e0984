"""Calibrate the SASS-mode timing values of a config from the t-* microbenchmarks alone.

Each value below moves one program probe (simt_sim/calibrate/probes/programs.py) monotonically: the script finds,
by bisection over whole steps (1, or a fit's step) with the simulator itself, the value whose simulated probe comes
closest to the H100's, with every other value as the config has it.  The workload and validation
programs play no part; they are the test of the result.

    python -m simt_sim.calibrate.sass_fit [--config h100] [VALUE ...]

prints each value's probe, H100 figure, fitted value and the config's value; exit 1 when they
differ (`tests/test_sass_fit.py` keeps configs/h100.yaml equal to the fit).
"""
from __future__ import annotations

import argparse
import sys
from dataclasses import dataclass

from simt_sim.calibrate.probes.programs import h100_value, probe, simulated_value
from simt_sim.errors import InputError
from simt_sim.machine.config import load_config


@dataclass(frozen=True)
class Fit:
    key: str            # config key, dotted
    probe: str          # the probe it moves
    low: int            # search range, in steps
    high: int
    step: float = 1     # the value is a whole number of these


FITS = [
    Fit("sass.fetch.l1.line_cycles", "fetch_4096_warm", 8, 64),         # 64 KiB: L0 misses, L1 hits
    Fit("sass.fetch.l2_line_cycles", "fetch_16384_warm", 8, 128),       # 256 KiB: L1 misses too
    Fit("sass.taken_branch_latency", "issue_fp32_loop_w1", 0, 64),     # a loop's branch alone
    Fit("sass.reconverge_latency", "loop_iteration_converged", 0, 64),   # then BSYNC in an if/else loop
    Fit("sass.group_switch_latency", "loop_iteration_divergent", 0, 64),   # then its BSYNC reached apart
    Fit("sass.kernel_launch_latency", "launch_empty", 3000, 4200),     # beside launch-empty's S2R
    Fit("sass.block_launch_interval", "block_cost", 0, 1024),
    Fit("sass.memory.l1.latency", "l1_hit_chase", 8, 64),              # LDG's L1 hits (PTX: memory.l1.latency)
    Fit("sass.memory.shared.latency", "lds_chase", 4, 64),             # LDS (PTX: memory.shared.latency)
    Fit("sass.store_data_read_cycles", "store_operand_read", 0, 8),    # an STS's data, after its address
    # global stores: the SM's store port, then the buffers in front of it (memory.l1)
    Fit("sass.memory.l1.store_sectors_per_cycle", "stg_per_cycle_w8", 10, 40, 0.05),
    Fit("sass.memory.l1.smsp_store_cycles", "stg_burst_lone_32_64", 40, 120, 0.1),
    Fit("sass.memory.l1.smsp_store_buffer", "stg_burst_lone_16_32", 1, 16),
    Fit("sass.memory.l1.store_min_cycles", "stg_burst_sector_w4_32_64", 10, 50, 0.1),
    Fit("sass.memory.l1.store_buffer", "stg_burst_w4_16_32", 1, 64),
]


def fit_value(fit: Fit) -> tuple[float, float, float]:
    """(fitted value, H100 figure, simulated figure at the fitted value)."""
    p = probe(fit.probe)
    target = h100_value(p)
    cache: dict[int, float] = {}

    def sim(v: int) -> float:
        if v not in cache:
            cache[v] = simulated_value(p, "sass", [f"{fit.key}={as_value(fit, v)}"])
        return cache[v]

    lo, hi = fit.low, fit.high
    rising = sim(hi) >= sim(lo)
    while hi - lo > 1:                        # sim(lo) and sim(hi) bracket the target
        mid = (lo + hi) // 2
        if (sim(mid) < target) == rising:
            lo = mid
        else:
            hi = mid
    best = min((lo, hi), key=lambda v: abs(sim(v) - target))
    return as_value(fit, best), target, sim(best)


def as_value(fit: Fit, steps: int) -> float | int:
    """The config value `steps` steps of fit.step make (an int where the step is 1)."""
    return steps if fit.step == 1 else round(steps * fit.step, 6)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m simt_sim.calibrate.sass_fit", description=__doc__.splitlines()[0])
    ap.add_argument("values", nargs="*", help="config keys to fit (default: all)")
    ns = ap.parse_args(argv)
    chosen = [f for f in FITS if not ns.values or f.key in ns.values]
    if ns.values and len(chosen) != len(ns.values):
        print(f"error: known values: {', '.join(f.key for f in FITS)}", file=sys.stderr)
        return 2
    cfg = load_config("h100")
    differ = 0
    print(f"{'value':30} {'probe':26} {'H100':>9} {'fitted':>7} {'sim':>9} {'config':>7}")
    for f in chosen:
        try:
            value, target, got = fit_value(f)
        except InputError as e:
            print(f"error: {e}", file=sys.stderr)
            return 2
        have = cfg.get(f.key)
        differ += value != have
        print(f"{f.key:30} {f.probe:26} {target:9.3f} {value:7} {got:9.3f} {have:7}")
    return 1 if differ else 0


if __name__ == "__main__":
    sys.exit(main())
