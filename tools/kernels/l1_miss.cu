// What an L1-allocating load pays when it misses L1 and hits L2 (tools/l1_miss.py): one warp chases
// `steps` lines 64 KiB apart (each line holds the next one's offset), first with ld.global.cg so that
// the lines are in L2 but not in L1, then again timed: with ld.global.cg (L2 only: k_chase_cg) or
// a plain load (LDG.E, allocating in L1: k_chase_ca).  clk[0], clk[1] = the timed pass's start and end.
// (x is not const __restrict__, so that the plain load stays LDG.E, not LDG.E.CONSTANT.)
// __ldcg: LDG.E.STRONG.GPU, as the L2 chases of the probes; a plain load: LDG.E, as the workloads' loads
__device__ __forceinline__ unsigned load_cg(const unsigned* p) { return __ldcg(p); }
__device__ __forceinline__ unsigned load_ca(const unsigned* p) { return *p; }

template <bool CA>
__device__ __forceinline__ void chase(const unsigned* x, long long* clk, unsigned* out, int steps) {
    unsigned at = 0;
    for (int i = 0; i < steps; i++) at = load_cg(x + at);     // the lines into L2
    out[32 + threadIdx.x] = at;                                // (kept: its loads are not dead code)
    at = 0;
    long long t0 = clock64();
    for (int i = 0; i < steps; i++) at = CA ? load_ca(x + at) : load_cg(x + at);
    long long t1 = clock64();
    out[threadIdx.x] = at;
    if (threadIdx.x == 0) { clk[0] = t0; clk[1] = t1; }
}

extern "C" __global__ void k_chase_cg(const unsigned* x, long long* clk, unsigned* out, int steps) { chase<false>(x, clk, out, steps); }
extern "C" __global__ void k_chase_ca(const unsigned* x, long long* clk, unsigned* out, int steps) { chase<true>(x, clk, out, steps); }
