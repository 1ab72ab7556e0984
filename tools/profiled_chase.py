#!/usr/bin/env python
"""The DRAM chase of programs/validation/v-lat-dram timed in the cache and clock states its references
come from, on the GPU machine.  `simt-sim hw record` reads clock spans from plain launches (the
chain freshly copied by the host, clocks as the driver sets them) and `simt-sim validate`
compares cycles with Nsight Compute's `sm__cycles_elapsed.max` (ncu flushes the caches and locks
the clocks to base by default).  Plain launches are timed fresh, after an L2 flush (a write of
twice the L2) and warm (a second launch); ncu runs with each of its cache and clock controls.
Each launch reads clock64() and %globaltimer around the 32 dependent loads, so each state also
gives its SM clock.

    python tools/profiled_chase.py --out programs/validation/v-lat-dram/reference/h100-profiled-chase.json
"""
from __future__ import annotations

import argparse
import csv
import json
import subprocess
import sys
from pathlib import Path

from probe_output import probe_parser, write_result

KERNEL = r'''
__device__ __forceinline__ long long global_ns() {
    long long t; asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t)); return t;
}
extern "C" __global__ void chase(const unsigned* chain, long long* clk, unsigned* res, unsigned start) {
    unsigned j = start;
    long long g0 = global_ns();
    long long t0 = clock64();
#pragma unroll
    for (int k = 0; k < 32; k++) j = __ldcg(&chain[j]);
    long long t1 = clock64();
    long long g1 = global_ns();
    res[0] = j;
    clk[0] = t0; clk[1] = t1; clk[2] = g0; clk[3] = g1;
}
extern "C" __global__ void spin(long long cycles, long long* clk) {
    long long g0 = global_ns(), t0 = clock64(), t = t0;
    while (t - t0 < cycles) t = clock64();
    clk[0] = t - t0; clk[1] = global_ns() - g0;
}
'''
LAUNCHES = 5
PLAIN_STATES = ("fresh", "flushed", "warm")
NCU_CONTROLS = {"default": [], "cache-none": ["--cache-control", "none"],
                "clock-none": ["--clock-control", "none"],
                "both-none": ["--cache-control", "none", "--clock-control", "none"]}


def chain_buffer():
    """v-lat-dram's chain, as its manifest makes it."""
    from simt_sim.frontend.manifest import load_manifest
    manifest = load_manifest(str(Path(__file__).resolve().parents[1] / "programs" / "validation" / "v-lat-dram"))
    return next(b for b in manifest.buffers if b.name == "chain").make()


def all_states() -> dict:
    return {state: launch_clocks(state) for state in PLAIN_STATES}


def launch_clocks(state: str) -> dict:
    """LAUNCHES launches in one cache state: chase cycles, and the SM clock a 2 ms spin measures."""
    import cupy as cp
    import numpy as np
    module = cp.RawModule(code=KERNEL, options=("-arch=sm_90",))
    chase, spin = module.get_function("chase"), module.get_function("spin")
    l2_bytes = cp.cuda.runtime.getDeviceProperties(0)["l2CacheSize"]
    clk, res = cp.zeros(4, dtype=cp.int64), cp.zeros(1, dtype=cp.uint32)
    rows = []
    for _ in range(LAUNCHES):
        chain = cp.asarray(chain_buffer())
        if state == "flushed":
            cp.zeros(2 * l2_bytes // 4, dtype=cp.uint32).fill(1)
        if state == "warm":
            chase((1,), (1,), (chain, clk, res, np.uint32(0)))
        chase((1,), (1,), (chain, clk, res, np.uint32(0)))
        c = cp.asnumpy(clk)
        rows.append({"chase": int(c[1] - c[0]), "chase_ns": int(c[3] - c[2])})
    spin((1,), (1,), (np.int64(4_000_000), clk))
    c = cp.asnumpy(clk)
    return {"launches": rows, "sm_clock_mhz": round(1000.0 * c[0] / c[1], 1)}


NCU_METRICS = ["sm__cycles_elapsed.max", "gpc__cycles_elapsed.avg.per_second",
               "lts__cycles_elapsed.avg.per_second", "dram__cycles_elapsed.avg.per_second"]


def profiled(options: list[str]) -> dict:
    """The plain states' launches under ncu with these controls, and ncu's metrics for each timed
    chase launch (the warm state's first launch of each pair only warms)."""
    run = subprocess.run(["ncu", *options, "--kernel-name", "chase", "--metrics", ",".join(NCU_METRICS),
                          "--csv", sys.executable, __file__, "--inner"], capture_output=True, text=True, check=True)
    clocks = json.loads([ln for ln in run.stdout.splitlines() if ln.startswith("{")][-1])
    rows = list(csv.reader(run.stdout.splitlines()))
    header = next(r for r in rows if "Metric Name" in r)
    name_at, value_at = header.index("Metric Name"), header.index("Metric Value")
    metrics = {m: [float(r[value_at].replace(",", "")) for r in rows[rows.index(header) + 1:]
                   if len(r) > value_at and r[name_at] == m] for m in NCU_METRICS}
    taken = {"fresh": slice(0, LAUNCHES), "flushed": slice(LAUNCHES, 2 * LAUNCHES),
             "warm": slice(2 * LAUNCHES + 1, 4 * LAUNCHES, 2)}
    for state, at in taken.items():
        clocks[state]["ncu"] = {m: v[at] for m, v in metrics.items()}
    return clocks


def main() -> None:
    ap = probe_parser(__doc__)
    ap.add_argument("--inner", action="store_true", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.inner:
        print(json.dumps(all_states()))
        return
    result = {"kernel": "v-lat-dram's chase: 32 dependent ld.global.cg 4224 bytes apart, one thread",
              "plain": all_states(),
              "under_ncu": {name: profiled(opts) for name, opts in NCU_CONTROLS.items()}}
    write_result(result, args.out)


if __name__ == "__main__":
    main()
