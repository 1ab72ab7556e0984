// Atomics through generic pointers: a __noinline__ function cannot know whether its pointer is
// shared or global, so ptxas writes ATOM (generic compare-and-swap, add, max) and RED (a generic
// reduction); the kernel passes it both shared and global addresses.
__device__ __noinline__ unsigned bump(unsigned* p, unsigned v) {
    unsigned old = *p, assumed;
    do { assumed = old; old = atomicCAS(p, assumed, assumed + v); } while (old != assumed);
    return old;
}
__device__ __noinline__ void reduce(unsigned* p, unsigned v) { atomicAdd(p, v); }
__device__ __noinline__ unsigned biggest(unsigned* p, unsigned v) { return atomicMax(p, v); }
extern "C" __global__ void sass_generic_atomics(const unsigned* in, unsigned* g, unsigned* out, int n) {
    __shared__ unsigned s[16];
    int t = threadIdx.x;
    if (t < 16) s[t] = 0;
    __syncthreads();
    int i = blockIdx.x * blockDim.x + t;
    unsigned v = i < n ? in[i] : 0u;
    if (i < n) {
        bump(&s[v & 7], v >> 24);
        bump(&g[v & 3], 1u);
        reduce(&s[8 + ((v >> 3) & 3)], v & 0xff);
        reduce(&g[4 + ((v >> 5) & 3)], 2u);
        biggest(&s[12 + ((v >> 7) & 3)], v >> 8);
        biggest(&g[8 + ((v >> 9) & 3)], v >> 4);
    }
    __syncthreads();
    if (t < 16) out[blockIdx.x * 16 + t] = s[t];
}
