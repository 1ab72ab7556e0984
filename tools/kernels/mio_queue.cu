// The memory-instruction queue (tools/mio_queue.py): warps issue a burst of BURST independent
// memory instructions of one kind, each followed by a clock read, then add up the loaded values and
// read the clock once more.  The clock reads issue in order behind the memory instructions, so
// their steps show when each one was accepted: while a queue in front of the LSU / MIO has room, a
// warp goes on at its issue rate; once it is full, at the rate the queue drains.  Only the warps
// whose bit is set in `active` run the burst (warp w sits on sub-partition w % 4), so two warps can
// share one sub-partition's queue while the others idle.  Lane 0 of each bursting warp writes
// times[w * (BURST + 2) + i]: i = 0 before the burst, i = 1..BURST after each instruction, BURST + 1
// after the sum (the last result has arrived).
#define BURST 32
// the low word of clock64 (CS2R, a fixed-latency read; %clock would be read into a uniform register by
// S2UR, which takes another path)
__device__ __forceinline__ unsigned clock32() { long long t; asm volatile("mov.u64 %0, %%clock64;" : "=l"(t)); return (unsigned)t; }
__device__ __forceinline__ unsigned saddr(const void* p) { return (unsigned)__cvta_generic_to_shared(p); }

// lane 0 writes the warp's BURST + 2 clock readings
__device__ __forceinline__ void record(unsigned* times, const unsigned* t) {
    if ((threadIdx.x & 31) == 0) {
        unsigned* mine = times + (threadIdx.x / 32) * (BURST + 2);
#pragma unroll
        for (int i = 0; i < BURST + 2; i++) mine[i] = t[i];
    }
}

__device__ __forceinline__ bool bursting(unsigned active) { return (active >> (threadIdx.x / 32)) & 1; }

// BURST loads into v[0..BURST), each followed by a clock read; then their sum to out and the record
#define TIMED_BURST(LOAD)                                                  \
    t[0] = clock32();                                                      \
    _Pragma("unroll") for (int i = 0; i < BURST; i++) {                    \
        LOAD;                                                              \
        t[i + 1] = clock32();                                              \
    }                                                                      \
    _Pragma("unroll") for (int i = 0; i < BURST; i++) acc += v[i];         \
    out[threadIdx.x] = acc;                                                \
    t[BURST + 1] = clock32();                                              \
    record(times, t);

// LDS.32, one bank per lane (no conflicts); each instruction reads its own 128-byte row
extern "C" __global__ void k_lds32(unsigned* times, unsigned* out, unsigned active) {
    __shared__ unsigned s[BURST * 32];
    for (int i = threadIdx.x; i < BURST * 32; i += blockDim.x) s[i] = i;
    __syncthreads();
    if (!bursting(active)) return;
    unsigned a = saddr(&s[threadIdx.x & 31]), v[BURST], t[BURST + 2], acc = 0;
    TIMED_BURST(asm volatile("ld.shared.u32 %0, [%1];" : "=r"(v[i]) : "r"(a + i * 128)))
}

// LDS.128, 16 bytes a lane (four passes through the banks each); 16 of them fill 64 registers
extern "C" __global__ void k_lds128(unsigned* times, unsigned* out, unsigned active) {
    __shared__ __align__(16) unsigned s[BURST * 128];
    for (int i = threadIdx.x; i < BURST * 128; i += blockDim.x) s[i] = i;
    __syncthreads();
    if (!bursting(active)) return;
    unsigned a = saddr(&s[(threadIdx.x & 31) * 4]), v[BURST / 2][4], t[BURST + 2], acc = 0;
    t[0] = clock32();
#pragma unroll
    for (int i = 0; i < BURST / 2; i++) {
        asm volatile("ld.shared.v4.u32 {%0,%1,%2,%3}, [%4];"
                     : "=r"(v[i][0]), "=r"(v[i][1]), "=r"(v[i][2]), "=r"(v[i][3]) : "r"(a + i * 512));
        t[i + 1] = clock32();
    }
    for (int i = BURST / 2; i < BURST; i++) t[i + 1] = t[BURST / 2];
#pragma unroll
    for (int i = 0; i < BURST / 2; i++) acc += v[i][0] ^ v[i][1] ^ v[i][2] ^ v[i][3];
    out[threadIdx.x] = acc;
    t[BURST + 1] = clock32();
    record(times, t);
}

// STS.32, one bank per lane: nothing comes back, so only the queue and the pipe can hold the warp
extern "C" __global__ void k_sts32(unsigned* times, unsigned* out, unsigned active) {
    __shared__ unsigned s[BURST * 32];
    if (!bursting(active)) return;
    unsigned a = saddr(&s[threadIdx.x & 31]), t[BURST + 2];
    t[0] = clock32();
#pragma unroll
    for (int i = 0; i < BURST; i++) {
        asm volatile("st.shared.u32 [%0], %1;" ::"r"(a + i * 128), "r"(threadIdx.x + i) : "memory");
        t[i + 1] = clock32();
    }
    __syncwarp();
    out[threadIdx.x] = s[(threadIdx.x * 7) & (BURST * 32 - 1)];
    t[BURST + 1] = clock32();
    record(times, t);
}

// LDG.32 hitting L1 (each warp reads the 32 lines once before the burst, and again in it)
extern "C" __global__ void k_ldg32(unsigned* times, unsigned* out, unsigned active, const unsigned* data) {
    if (!bursting(active)) return;
    const unsigned* p = data + (threadIdx.x & 31);
    unsigned v[BURST], t[BURST + 2], acc = 0;
#pragma unroll
    for (int i = 0; i < BURST; i++) {
        asm volatile("ld.global.ca.u32 %0, [%1];" : "=r"(v[i]) : "l"(p + i * 32));
        acc ^= v[i];
    }
    out[threadIdx.x + blockDim.x] = acc;
    acc = 0;
    TIMED_BURST(asm volatile("ld.global.ca.u32 %0, [%1];" : "=r"(v[i]) : "l"(p + i * 32)))
}
