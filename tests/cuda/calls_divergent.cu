// Device functions (__noinline__, so that nvcc emits .func and call) called from divergent code:
// only the odd lanes call scale(), early() returns early in some lanes (three returns),
// window() keeps a local array indexed at run time (a __local_depot in the .func).
__device__ __noinline__ int scale(int x, int k) { return x * k + (x >> 2); }

__device__ __noinline__ int early(int x) {
    if (x < 0) return -x;                       // some lanes return here
    if (x % 3 == 0) return x / 3 + 1000;        // some here
    int s = 0;
    for (int i = 0; i < (x & 7); i++) s += i * x;
    return s;                                   // the rest here
}

__device__ __noinline__ int window(int x, int k) {
    int a[12];
    for (int i = 0; i < 12; i++) a[i] = x * i - k;
    return a[(x + k) % 12 < 0 ? 0 : (x + k) % 12] + a[k % 12];
}

extern "C" __global__ void calls_divergent(const int* in, int* out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    int v = in[i];
    int r = v;
    if (v & 1) r = scale(v, 3);                 // a divergent call
    r += early(v - 20);
    if (i % 4 != 0) r += window(v & 1023, i & 15);
    out[i] = r;
}
