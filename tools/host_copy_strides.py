#!/usr/bin/env python
"""What the first touch of host-copied data costs, by the distance between the lines touched
(GPU machine).  One thread chases 32 dependent ld.global.cg through a chain the host has just
copied ("fresh"), the same chain after a launch that read it ("warm"), and the chain copied after
40 MB of other copies ("fresh-big"); the stride runs from 32 bytes to 1 MiB.

    python tools/host_copy_strides.py --out programs/validation/v-lat-dram/reference/h100-host-copy-strides.json
"""
from __future__ import annotations


from probe_output import probe_parser, write_result

KERNEL = r'''
extern "C" __global__ void chase(const unsigned* chain, long long* clk, unsigned* res, unsigned start) {
    unsigned j = start;
    long long t0 = clock64();
#pragma unroll
    for (int k = 0; k < 32; k++) j = __ldcg(&chain[j]);
    long long t1 = clock64();
    res[0] = j; clk[0] = t0; clk[1] = t1;
}
'''
STRIDES_WORDS = (8, 32, 64, 256, 1056, 8192, 65536)
STATES = ("fresh", "warm", "fresh-big")
LAUNCHES = 5


def per_load_cycles(stride: int, state: str) -> list[float]:
    import cupy as cp
    import numpy as np
    chase = cp.RawModule(code=KERNEL, options=("-arch=sm_90",)).get_function("chase")
    clk, res = cp.zeros(2, dtype=cp.int64), cp.zeros(1, dtype=cp.uint32)
    n = stride * 40
    host = (np.arange(n, dtype=np.uint32) + stride) % n
    cycles = []
    for _ in range(LAUNCHES):
        if state == "fresh-big":
            cp.asarray(np.ones(10 * 1024 * 1024, np.uint32))
        chain = cp.asarray(host)
        if state == "warm":
            chase((1,), (1,), (chain, clk, res, np.uint32(0)))
        chase((1,), (1,), (chain, clk, res, np.uint32(0)))
        c = cp.asnumpy(clk)
        cycles.append(int(c[1] - c[0]) / 32)
    return cycles


def main() -> None:
    ap = probe_parser(__doc__)
    args = ap.parse_args()
    result = {"kernel": "32 dependent ld.global.cg, one thread; cycles per load, per launch",
              "per_load": {f"{4 * s} B": {state: per_load_cycles(s, state) for state in STATES} for s in STRIDES_WORDS}}
    write_result(result, args.out)


if __name__ == "__main__":
    main()
