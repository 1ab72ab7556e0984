// A kernel that spills to its stack: __maxnreg__(24) with a local array indexed at run time, so
// ptxas reserves a stack frame (VIADD R1, R1, 0xffff....) and each thread's local accesses must
// stay in its own frame.
extern "C" __global__ void __maxnreg__(24) sass_spill(const unsigned* in, unsigned* out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    unsigned a[12];
    unsigned x = in[i];
    for (int k = 0; k < 12; k++) { x = x * 1664525u + 1013904223u; a[k] = x ^ (x >> 13); }
    unsigned acc0 = 0, acc1 = 1, acc2 = 2, acc3 = 3, acc4 = 4, acc5 = 5, acc6 = 6, acc7 = 7;
    for (int k = 0; k < 24; k++) {
        unsigned v = a[(x + k * 5) % 12];
        acc0 += v; acc1 ^= v * 3; acc2 += acc1 >> 3; acc3 = acc3 * 7 + v; acc4 ^= acc3 + acc0;
        acc5 += acc4 ^ v; acc6 = (acc6 << 1) ^ acc5; acc7 += acc6 + acc2;
        a[(v + k) % 12] = acc7 ^ acc0;
        x = x * 1103515245u + 12345u;
    }
    out[3 * i] = acc0 ^ acc1 ^ acc2 ^ acc3;
    out[3 * i + 1] = acc4 + acc5 + acc6 + acc7;
    out[3 * i + 2] = a[x % 12];
}
