// Recursion with a per-thread depth: fib() recurses twice per level (nvcc keeps the calls),
// walk() recurses once per level with a local array per frame indexed at run time, and lanes
// reach different depths, so the warp's lanes return from different levels.
__device__ __noinline__ int fib(int n) { return n < 2 ? n : fib(n - 1) + fib(n - 2); }

__device__ __noinline__ int walk(int n, int seed) {
    int a[6];
    for (int i = 0; i < 6; i++) a[i] = seed * (i + 1) + n;
    if (n <= 0) return a[seed % 6];
    int r = walk(n - 1, (seed * 7 + a[n % 6]) & 255);
    return r ^ a[(n + seed) % 6];
}

extern "C" __global__ void calls_recursive(const int* in, int* out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    int v = in[i];
    out[2 * i] = fib(v % 12);
    out[2 * i + 1] = walk(v % 9, v & 255);
}
