// CALL / RET, constant banks 3 and 4 in sm_90 SASS (tests/test_sass_call.py).
// ptxas keeps __noinline__ functions as subroutines after the kernel's code: CALL.REL.NOINC to
// them with the return address in a register pair, RET.REL.NODEC back.  Only odd values call
// outer() (a divergent call), which calls inner() (a nested call) once or twice; weights[] and
// bias are __constant__ data (bank 3, read indexed and direct); calls_made and offsets[] are module
// globals reached through their addresses in bank 4 (offsets[] with initial values).
__device__ __noinline__ int twice(int x) { return 2 * x; }
__device__ __noinline__ int seven_minus(int x) { return 7 - x; }
__device__ __noinline__ int inner(int x) { return x * 3 + 1; }

__device__ __noinline__ int outer(int x) {
    int r = inner(x);
    if (x & 2) r += inner(r);
    return r ^ 5;
}

__device__ int offsets[4] = {10, 20, 30, 40};
__device__ int calls_made;
__constant__ int weights[8] = {3, 1, 4, 1, 5, 9, 2, 6};
__constant__ float bias = 0.5f;

extern "C" __global__ void sass_calls(const int* in, int* out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    int v = in[i];
    int r = v;
    if (v & 1) r = outer(v);
    r += (v & 2) ? twice(v) : seven_minus(v);
    r += offsets[v & 3];
    r += weights[v & 7] * (int)(bias * 4.0f);
    atomicAdd(&calls_made, 1);
    out[i] = r;
}
