// 64-bit integer atomics: atomicAdd / atomicMin / atomicMax / atomicAnd / atomicOr / atomicXor on
// long long and unsigned long long, and atomicCAS used as a spin-free "first writer wins".
extern "C" __global__ void int64_atomics(const long long* v, long long* acc, unsigned long long* bits,
                                         unsigned long long* owner, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    long long x = v[i];
    atomicAdd((unsigned long long*)&acc[0], (unsigned long long)x);
    atomicMin(&acc[1], x);
    atomicMax(&acc[2], x);
    atomicAnd(&bits[0], (unsigned long long)x | 0xff00ff00ff00ff00ull);
    atomicOr(&bits[1], 1ull << (i & 63));
    atomicXor(&bits[2], (unsigned long long)x);
    atomicCAS(&owner[i & 7], 0ull, (unsigned long long)(i + 1));
}
