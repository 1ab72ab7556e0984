// printf: ptxas calls vprintf through its address in constant bank 4 (CALL.ABS.NOINC, with the
// return address from LEPC), an
// external function of the CUDA device runtime (tests/test_sass_call.py: a located error).
#include <cstdio>
extern "C" __global__ void sass_printf(int* out) {
    int t = threadIdx.x;
    if (t == 3) printf("thread %d\n", t);
    out[t] = t;
}
