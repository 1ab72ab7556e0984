#include "../../include/sass_diff.cuh"

// Global atomics, all deterministic on the GPU: ATOMG (add, sub, exch, cas, min, max, inc, dec,
// and, or, xor; 32 and 64 bit; f32 add) each on a slot of its own so the returned old value does
// not depend on thread order; REDG (results unused) on shared counters only for integer operations
// whose final value is order-independent, and float adds with one adder per address.
extern "C" __global__ void s_atomic(const unsigned* a, const unsigned* b, unsigned* slot, unsigned* old,
                                    unsigned* red, unsigned long long* slot64, unsigned long long* old64,
                                    unsigned long long* red64, float* facc, double* dacc, int n) {
    SIMT_SITE(1);                                   // entry (trace variant only)
    int i = SASS_DIFF_TID();
    if (i >= n) return;
    unsigned x = a[i], y = b[i];
    old[0 * n + i] = atomicAdd(&slot[0 * n + i], x);
    old[1 * n + i] = atomicSub(&slot[1 * n + i], x);
    old[2 * n + i] = atomicExch(&slot[2 * n + i], x);
    old[3 * n + i] = atomicCAS(&slot[3 * n + i], y, x);      // slot 3 equals y for every other i
    old[4 * n + i] = (unsigned)atomicMin((int*)&slot[4 * n + i], (int)x);
    old[5 * n + i] = atomicMax(&slot[5 * n + i], x);
    old[6 * n + i] = atomicInc(&slot[6 * n + i], y);
    old[7 * n + i] = atomicDec(&slot[7 * n + i], y);
    old[8 * n + i] = atomicAnd(&slot[8 * n + i], x);
    old[9 * n + i] = atomicOr(&slot[9 * n + i], x);
    old[10 * n + i] = atomicXor(&slot[10 * n + i], x);
    old[11 * n + i] = __float_as_uint(atomicAdd(&facc[n + i], as_f32(y)));
    atomicAdd(&red[i & 7], x);                                  // sums modulo 2^32
    atomicMin((int*)&red[8], (int)x);
    atomicMax(&red[9], y);
    atomicOr(&red[10], x & y);
    atomicXor(&red[11], x);
    atomicAnd(&red[12], x | y);
    atomicMax((int*)&red[13], (int)y);
    atomicMin(&red[14], x);
    atomicAdd(&facc[i], as_f32(x));                             // one adder per float address
    unsigned long long X = (unsigned long long)y << 32 | x;
    old64[0 * n + i] = atomicAdd(&slot64[0 * n + i], X);
    old64[1 * n + i] = atomicCAS(&slot64[1 * n + i], (unsigned long long)x << 32 | y, X);
    old64[2 * n + i] = atomicExch(&slot64[2 * n + i], X);
    old64[3 * n + i] = (unsigned long long)atomicMin((long long*)&slot64[3 * n + i], (long long)X);
    old64[4 * n + i] = atomicMax(&slot64[4 * n + i], X);
    atomicAdd(&red64[0], X);
    atomicMax((long long*)&red64[1], (long long)X);
    atomicAnd(&red64[2], X);
    atomicAdd(&dacc[i], (double)as_f32(x) * 0.5);
    // a compare-and-swap loop (ptxas puts YIELD in it): float maximum over all threads of a block
    // into one word; the final value is order-independent (NaN operands are skipped)
    float f = as_f32(y);
    if (f == f) {
        unsigned* target = &red[15];
        unsigned seen = *(volatile unsigned*)target, want;
        while (as_f32(seen) < f || seen == 0xffffffffu) {
            want = __float_as_uint(f);
            unsigned prev = atomicCAS(target, seen, want);
            if (prev == seen) break;
            seen = prev;
        }
    }
}
