#!/usr/bin/env python
"""The DRAM chase of programs/v-lat-dram timed two ways on the GPU machine: plain launches (what
`simt-sim hw record` reads its clock spans from) and launches under Nsight Compute (where the
cycles `simt-sim validate` compares come from: `sm__cycles_elapsed.max`).  Each launch reads the
clock at entry, around the 32 dependent loads and after a fence at the end, on a fresh copy of
the chain.

    python tools/profiled_chase.py --out programs/v-lat-dram/reference/h100-profiled-chase.json
"""
from __future__ import annotations

import argparse
import csv
import json
import subprocess
import sys
from pathlib import Path

KERNEL = r'''
extern "C" __global__ void chase(const unsigned* chain, long long* clk, unsigned* res, unsigned start) {
    long long te = clock64();
    unsigned j = start;
    long long t0 = clock64();
#pragma unroll
    for (int k = 0; k < 32; k++) j = __ldcg(&chain[j]);
    long long t1 = clock64();
    res[0] = j;
    clk[0] = te; clk[1] = t0; clk[2] = t1;
    __threadfence();
    clk[3] = clock64();
}
'''
LAUNCHES = 5


def chain_buffer():
    """v-lat-dram's chain, as its manifest makes it."""
    from simt_sim.frontend.manifest import load_manifest
    manifest = load_manifest(str(Path(__file__).resolve().parents[1] / "programs" / "v-lat-dram"))
    return next(b for b in manifest.buffers if b.name == "chain").make()


def launch_clocks() -> list[dict]:
    import cupy as cp
    import numpy as np
    kernel = cp.RawModule(code=KERNEL, options=("-arch=sm_90",)).get_function("chase")
    rows = []
    for _ in range(LAUNCHES):
        chain = cp.asarray(chain_buffer())
        clk, res = cp.zeros(4, dtype=cp.int64), cp.zeros(1, dtype=cp.uint32)
        kernel((1,), (1,), (chain, clk, res, np.uint32(0)))
        c = cp.asnumpy(clk)
        rows.append({"chase": int(c[2] - c[1]), "after_chase": int(c[3] - c[2])})
    return rows


def profiled() -> dict:
    """The same launches under ncu (its default cache and clock control)."""
    run = subprocess.run(["ncu", "--metrics", "sm__cycles_elapsed.max", "--csv", sys.executable, __file__,
                          "--inner"], capture_output=True, text=True, check=True)
    clocks = json.loads([ln for ln in run.stdout.splitlines() if ln.startswith("[")][-1])
    cycles = [float(row[-1].replace(",", "")) for row in csv.reader(run.stdout.splitlines())
              if "sm__cycles_elapsed.max" in row]
    return {"clocks": clocks, "sm__cycles_elapsed.max": cycles}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", help="write the JSON here (else print it)")
    ap.add_argument("--inner", action="store_true", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.inner:
        print(json.dumps(launch_clocks()))
        return
    result = {"kernel": "v-lat-dram's chase: 32 dependent ld.global.cg 4224 bytes apart, one thread",
              "plain": launch_clocks(), "under_ncu": profiled()}
    text = json.dumps(result, indent=1)
    if args.out:
        with open(args.out, "w") as f:
            f.write(text + "\n")
    print(text)


if __name__ == "__main__":
    main()
