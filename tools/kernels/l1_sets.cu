// Does the L1 data cache keep lines whose addresses lie a power of two apart (tools/l1_sets.py)?
// One thread chases a chain of `count` words `stride` bytes apart (each word holds the offset of
// the next), twice over (ld.global.nc: LDG.E.CONSTANT, cached in L1, as the workloads' const
// __restrict__ loads), and times the second pass: L1 hits if the lines all stay, L2 hits if they
// evict one another.  clk[0] = the second pass's cycles, clk[1] = the chain's end (kept live).
__device__ __forceinline__ long long clk64() { long long t; asm volatile("mov.u64 %0, %%clock64;" : "=l"(t) :: "memory"); return t; }

extern "C" __global__ void l1_chase(const unsigned* __restrict__ chain, int count, long long* clk) {
    unsigned at = 0;
    for (int i = 0; i < count; i++) at = __ldg(chain + at);          // first pass: the lines in
    long long t0 = clk64();
#pragma unroll 1
    for (int i = 0; i < count; i++) at = __ldg(chain + at);          // second pass, timed
    long long t1 = clk64();
    clk[0] = t1 - t0;
    clk[1] = at;
}
