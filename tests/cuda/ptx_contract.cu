// PTX-mode classes of issue 61: what ptxas makes of PTX that changes results (docs/ptx-subset.md,
// "What ptxas rewrites"); tests/test_corpus_ptx_classes.py runs it in PTX and SASS mode.
// Each statement is its own inline-assembly block (as cuda_fp16.h / cuda_bf16.h write __hmul and
// __hadd), so nvcc cannot contract them itself: the PTX keeps mul and add, ptxas decides.
//   nvcc -O3 -arch=sm_90 -ptx tests/cuda/ptx_contract.cu -o tests/cuda/ptx_contract.ptx
#include <cuda_fp16.h>
#include <cuda_bf16.h>

__device__ __forceinline__ float mulf(float a, float b) { float d; asm("mul.f32 %0, %1, %2;" : "=f"(d) : "f"(a), "f"(b)); return d; }
__device__ __forceinline__ float mulf_ftz(float a, float b) { float d; asm("mul.ftz.f32 %0, %1, %2;" : "=f"(d) : "f"(a), "f"(b)); return d; }
__device__ __forceinline__ float addf(float a, float b) { float d; asm("add.f32 %0, %1, %2;" : "=f"(d) : "f"(a), "f"(b)); return d; }
__device__ __forceinline__ float subf(float a, float b) { float d; asm("sub.f32 %0, %1, %2;" : "=f"(d) : "f"(a), "f"(b)); return d; }
__device__ __forceinline__ float addf_rn(float a, float b) { float d; asm("add.rn.f32 %0, %1, %2;" : "=f"(d) : "f"(a), "f"(b)); return d; }
__device__ __forceinline__ float negf(float a) { float d; asm("neg.f32 %0, %1;" : "=f"(d) : "f"(a)); return d; }

// o[k * n + i], k = 0..11 (f32 words), h[k * n + i], k = 0..3 (packed half words)
extern "C" __global__ void contract_f32(const float* a, const float* b, const float* c, float* o, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float x = a[i], y = b[i], z = c[i];
    o[0 * n + i] = addf(mulf(x, y), z);                 // fused: fma(x, y, z)
    o[1 * n + i] = addf(z, mulf(x, y));                 // fused, product second
    o[2 * n + i] = subf(mulf(x, y), z);                 // fma(x, y, -z)
    o[3 * n + i] = subf(z, mulf(x, y));                 // fma(-x, y, z)
    float m = mulf(y, z);
    o[4 * n + i] = addf(m, x);                          // the product has a second use: not fused
    o[5 * n + i] = m;
    o[6 * n + i] = addf(mulf(x, y), mulf(y, z));        // the first product fuses: fma(x, y, y*z)
    o[7 * n + i] = addf_rn(mulf(x, z), y);              // add.rn: not fused
    o[8 * n + i] = addf(mulf_ftz(x, y), z);             // .ftz on one side only: not fused
    o[9 * n + i] = addf(negf(mulf(x, z)), y);           // -(x*z) + y: fma(-x, z, y)
    float p = mulf(z, z);
    o[10 * n + i] = addf(p, x);                         // one product, two adds: both fused
    o[11 * n + i] = subf(y, p);
}

extern "C" __global__ void contract_half(const unsigned* a, const unsigned* b, const unsigned* c, unsigned* h, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    __half xa = __ushort_as_half((unsigned short)a[i]), xb = __ushort_as_half((unsigned short)b[i]);
    __half xc = __ushort_as_half((unsigned short)c[i]);
    __nv_bfloat16 ya = __ushort_as_bfloat16((unsigned short)(a[i] >> 16)), yb = __ushort_as_bfloat16((unsigned short)(b[i] >> 16));
    __nv_bfloat16 yc = __ushort_as_bfloat16((unsigned short)(c[i] >> 16));
    __half r0 = __hadd(__hmul(xa, xb), xc);             // HFMA2
    __nv_bfloat16 r1 = __hsub(yc, __hmul(ya, yb));      // HFMA2.BF16_V2 -a, b, c
    h[0 * n + i] = (unsigned)__half_as_ushort(r0) | ((unsigned)__bfloat16_as_ushort(r1) << 16);
    __half2 p2 = __hadd2(__hmul2(__halves2half2(xa, xb), __halves2half2(xb, xc)), __halves2half2(xc, xa));
    h[1 * n + i] = *(unsigned*)&p2;                     // f16x2: HFMA2 on both halves
    __half r2 = __hmin(xa, xa);                         // ptxas folds min(x, x) to x: a NaN keeps its payload
    __half r3 = __hmax(xb, xb);
    h[2 * n + i] = (unsigned)__half_as_ushort(r2) | ((unsigned)__half_as_ushort(r3) << 16);
    __nv_bfloat16 r4 = __hmax(ya, ya);                  // bf16: not folded (HMNMX2.BF16_V2: canonical NaN)
    h[3 * n + i] = (unsigned)__bfloat16_as_ushort(r4);
}

// float atomicAdd on shared memory keeps subnormals (ptxas: a CAS loop around FADD); on global
// memory it flushes them (RED.E.ADD.F32.FTZ.RN)
extern "C" __global__ void atomic_subnormal(const float* a, float* s_out, float* g_out, int n) {
    __shared__ float acc[32];
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (threadIdx.x < 32) acc[threadIdx.x] = 0.0f;
    __syncthreads();
    if (i < n) {
        atomicAdd(&acc[threadIdx.x & 31], a[i]);
        atomicAdd(&g_out[i & 31], a[i]);
    }
    __syncthreads();
    if (threadIdx.x < 32) s_out[blockIdx.x * 32 + threadIdx.x] = acc[threadIdx.x];
}

// div.approx.f32 as ptxas writes it: a * MUFU.RCP(b); without .ftz a subnormal divisor scales both
// operands by 2^24 first; a divisor of 2^126 or more has a flushed reciprocal (libdevice's fmodf
// divides x by itself this way).  And cvt.ftz.f64.f32 of a NaN: FMUL.FTZ x, 1 first (canonical NaN).
extern "C" __global__ void div_approx(const float* a, const float* b, float* o, double* w, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float x = a[i], y = b[i], q, r;
    double d;
    asm("div.approx.f32 %0, %1, %2;" : "=f"(q) : "f"(x), "f"(y));
    asm("div.approx.ftz.f32 %0, %1, %2;" : "=f"(r) : "f"(x), "f"(y));
    asm("cvt.ftz.f64.f32 %0, %1;" : "=d"(d) : "f"(x));
    o[i] = q;
    o[n + i] = r;
    w[i] = d;
}
