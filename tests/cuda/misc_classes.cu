// Issue 61 classes of the generated corpus found after 5b4ee18 (tests/test_corpus_misc_classes.py):
//   neg_select:  -fdimf(x, y) and -fmaxf(x, x): ptxas folds the neg.f32 into the select (FSEL -a),
//                a sign flip that keeps a NaN's payload (PTX mode: xor of the sign bit);
//   copysign_d:  copysignf(x, (float)d): abs.f32 and neg.f32 folded into FSEL -|a|, |a|;
//   sub64:       (x << 1) - (long long)i: LEA d, P0, a, -b, s, whose carry is 1 where b == 0;
//   trunc_abs:   trunc(fabs(d)) of a NaN: FRND.F64.TRUNC R, |R| applies no |x| to a NaN;
//   sqrt_rd:     __dsqrt_rd / __dsqrt_ru of tiny doubles (the exact remainder below the subnormals).
//   nvcc -O3 -arch=sm_90 -ptx tests/cuda/misc_classes.cu -o tests/cuda/misc_classes.ptx

extern "C" __global__ void neg_select(const float* a, const float* b, unsigned* o, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float x = a[i], y = b[i];
    o[i] = __float_as_uint(-(fdimf(x, y)));
    o[n + i] = __float_as_uint(-(fmaxf(x, x)));
}

// copysignf(x, (float)d): nvcc writes abs.f32, neg.f32 and a selp on d's sign bit; ptxas folds both
// into FSEL R2, -|R0|, |R0|, !P3 (the NaN x keeps its payload)
extern "C" __global__ void copysign_d(const float* a, const double* d, unsigned* o, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    o[i] = __float_as_uint(copysignf(a[i], (float)d[i]));
}

extern "C" __global__ void sub64(const unsigned long long* a, const int* b, unsigned long long* o, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    o[i] = (a[i] + a[i]) - (long long)b[i];
}

extern "C" __global__ void trunc_abs(const double* a, double* o, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    o[i] = trunc(fabs(a[i]));
}

extern "C" __global__ void sqrt_rd(const double* a, double* o, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    o[i] = __dsqrt_rd(a[i]);
    o[n + i] = __dsqrt_ru(a[i]);
}
