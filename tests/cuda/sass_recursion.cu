// Recursion with a data-dependent depth in SASS mode: a recursive sum of digits, a doubly
// recursive fib, and a recursive tree walk whose lanes take different branches, inside a
// divergent loop; a second kernel has divergent loops with break/continue and block barriers
// between them (2 blocks, no device function).
__device__ __noinline__ unsigned rsum(unsigned v, int depth) {
    if (depth == 0 || v == 0) return v & 7;
    unsigned d = v % 10;
    return d + rsum(v / 10, depth - 1) * ((d & 1) ? 3u : 1u);
}
__device__ __noinline__ int rfib(int k) { return k < 2 ? k : rfib(k - 1) + rfib(k - 2); }
__device__ __noinline__ unsigned walk(unsigned x, int depth) {
    if (depth <= 0) return x;
    if (x & 1) return walk(x * 3 + 1, depth - 1) ^ depth;
    return walk(x >> 1, depth - 2) + (unsigned)depth;
}
extern "C" __global__ void sass_recursion(const unsigned* in, unsigned* out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    unsigned v = in[i];
    unsigned acc = 0;
    for (unsigned k = 0; k < (v & 3) + 1; k++) {
        if ((v >> k) & 1) acc += rsum(v + k, (int)((v >> 4) & 7));
        else acc ^= walk(v + k, (int)((v >> 8) & 15));
    }
    out[3 * i] = acc;
    out[3 * i + 1] = (unsigned)rfib((int)(v % 11));
    out[3 * i + 2] = rsum(v, 9);
}
extern "C" __global__ void sass_divergent_loops(const unsigned* in, unsigned* out, int n) {
    __shared__ unsigned s[256];
    int t = threadIdx.x;
    int i = blockIdx.x * blockDim.x + t;
    unsigned v = i < n ? in[i] : 0u;
    unsigned acc = v;
    for (int k = 0; k < (int)(v & 15); k++) {
        if ((acc >> k) & 1) continue;
        acc = acc * 5 + k;
        if ((acc & 31) == 7) break;
        int j = 0;
        while (j < (int)((acc >> 3) & 7)) { acc ^= acc >> (j + 1); j++; }
    }
    s[t] = acc;
    __syncthreads();
    unsigned other = s[(t + 37) % blockDim.x];
    unsigned r = 0;
    if (t & 1) {
        for (unsigned k = other & 7; k < 9; k++) { r += k * other; if (r & 0x100) break; }
    } else {
        do { r = r * 3 + (other & 3); other >>= 2; } while (other);
    }
    __syncthreads();
    s[t] = r;
    __syncthreads();
    if (i < n) out[2 * i] = r + s[blockDim.x - 1 - t];
    if (i < n) out[2 * i + 1] = acc;
}
// Nested data-dependent loops whose bodies hold compare-and-swap loops (ptxas puts YIELD in them):
// lanes leave the inner and outer loops at different iterations and reopen the outer body's
// convergence barrier while others still wait at it.
extern "C" __global__ void sass_yield_loops(const unsigned* in, float* acc, unsigned long long* acc64, unsigned* out,
                                            int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    unsigned v = in[i];
    unsigned r = v;
    for (int k = 0; k < (int)(v & 7); k++) {
        int m = (int)((v >> (3 * k)) & 3);
        for (int j = 0; j < m; j++) {
            unsigned long long* p = acc64 + ((v >> j) & 3);
            unsigned long long old = *p, assumed;
            do { assumed = old; old = atomicCAS(p, assumed, assumed + (unsigned long long)(j + 1)); } while (old != assumed);
            r = r * 3 + j;
        }
        unsigned* q = (unsigned*)(acc + (k & 3));
        unsigned old = *q, assumed;
        do { assumed = old; old = atomicCAS(q, assumed, __float_as_uint(__uint_as_float(assumed) + 1.0f)); } while (old != assumed);
        if ((r & 15) == 3) break;
    }
    out[i] = r;
}
// Lanes leave a loop early (a return inside it) after a recursive call, while the lanes that
// stay wait at the loop body's barrier, which the recursive callee saves, reuses and restores;
// the callers then exit, and the waiters go on after their own BSYNC.
__device__ __noinline__ unsigned mix(unsigned x, unsigned d) {
    if (d == 0u) return x ^ 0xa5551aacu;
    unsigned t = mix(x * 56427u + 2444u, d - 1u);
    return (d & 1u) ? t + (x >> 1) : t ^ __brev(x);
}
extern "C" __global__ void sass_recursion_exit(const unsigned* in, unsigned* out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    unsigned v = in[i], u = v;
    for (unsigned k = 0; k < (v & 3u) + 1u; ++k) {
        u = mix(u ^ k, (v >> (4 * k)) & 7u);
        if ((u & 7u) == 5u) {
            out[2 * i] = u;
            out[2 * i + 1] = k;
            return;
        }
        u += k * 977u;
    }
    out[2 * i] = u;
    out[2 * i + 1] = 99u;
}
