// Float atomic add with NaN, infinity, zero and subnormal operands: which bits the H100 leaves in
// memory and returns.  Thread p takes the pair (vals[p / n], vals[p % n]): memory starts at the first,
// the second is added.  Global (result unused: RED; result used: ATOMG), shared (ptxas's CAS loop
// around a DADD / FADD) for double and float.
extern "C" __global__ void atomic_f64_nan(const unsigned long long* vals, const unsigned* vals32, int n,
                                          unsigned long long* red_mem, unsigned long long* atom_mem,
                                          unsigned long long* atom_ret, unsigned long long* sh_mem,
                                          unsigned long long* sh_ret, unsigned* red32, unsigned* atom32,
                                          unsigned* ret32, unsigned* sh32, unsigned* shret32) {
    __shared__ double s[256];
    __shared__ float s32[256];
    int p = blockIdx.x * blockDim.x + threadIdx.x;
    bool in = p < n * n;
    unsigned long long a = in ? vals[p / n] : 0ull, b = in ? vals[p % n] : 0ull;
    unsigned a32 = in ? vals32[p / n] : 0u, b32 = in ? vals32[p % n] : 0u;
    s[threadIdx.x] = __longlong_as_double((long long)a);
    s32[threadIdx.x] = __uint_as_float(a32);
    __syncthreads();
    if (in) {
        red_mem[p] = a;
        atom_mem[p] = a;
        red32[p] = a32;
        atom32[p] = a32;
        __threadfence();
        atomicAdd((double*)&red_mem[p], __longlong_as_double((long long)b));
        atom_ret[p] = (unsigned long long)__double_as_longlong(atomicAdd((double*)&atom_mem[p], __longlong_as_double((long long)b)));
        sh_ret[p] = (unsigned long long)__double_as_longlong(atomicAdd(&s[threadIdx.x], __longlong_as_double((long long)b)));
        atomicAdd((float*)&red32[p], __uint_as_float(b32));
        ret32[p] = __float_as_uint(atomicAdd((float*)&atom32[p], __uint_as_float(b32)));
        shret32[p] = __float_as_uint(atomicAdd(&s32[threadIdx.x], __uint_as_float(b32)));
    }
    __syncthreads();
    if (in) {
        sh_mem[p] = (unsigned long long)__double_as_longlong(s[threadIdx.x]);
        sh32[p] = __float_as_uint(s32[threadIdx.x]);
    }
}

// Contention: the 32 lanes of each warp add their own value to one word (per warp), in one
// instruction; with several NaNs the result could depend on the order the memory system takes them.
extern "C" __global__ void atomic_f64_order(const unsigned long long* vals, unsigned long long* mem,
                                            unsigned long long* ret) {
    int p = blockIdx.x * blockDim.x + threadIdx.x;
    ret[p] = (unsigned long long)__double_as_longlong(atomicAdd((double*)&mem[p >> 5], __longlong_as_double((long long)vals[p])));
}
