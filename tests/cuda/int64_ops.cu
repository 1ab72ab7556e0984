extern "C" __global__ void int64_ops(const long long* a, const long long* b, const unsigned long long* u, long long* out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    long long x = a[i], y = b[i];
    unsigned long long z = u[i];
    out[6 * i + 0] = x + y;
    out[6 * i + 1] = x * y - (x << 7);
    out[6 * i + 2] = x / y;
    out[6 * i + 3] = (long long)(z >> 13) ^ (x & 0xFFFF0000FFFFLL);
    out[6 * i + 4] = (long long)(z % 1000000007ULL);
    out[6 * i + 5] = (x < y) ? (long long)i : (x >> 2);
}
