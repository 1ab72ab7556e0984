#include <mma.h>
#include "../../include/sass_diff.cuh"

using namespace nvcuda;

// HMMA.16816.F32 (f16 and bf16 inputs, f32 accumulate), HMMA.16816.F16 (f16 accumulate),
// HMMA.1688.F32, DMMA.8x8x4 (f64), LDSM (ldmatrix .x4 and .x4.trans) and MOVM (ptxas's transpose of a row-major wmma B operand;
// the PTX parser does not read movmatrix).
// Each thread loads its own fragment registers in fragment order (A: 4 words, B: 2, C: 4 f32,
// D: 4 doubles), so the operand files need no knowledge of the fragment layout; warp w of the grid
// uses tile w.  Results are written in fragment order too.
extern "C" __global__ void s_tensor(const unsigned* A, const unsigned* B, const unsigned* C,
                                    const unsigned long long* D, unsigned* out, int n) {
    SIMT_SITE(1);                                   // entry (trace variant only)
    __shared__ __align__(16) unsigned sh[4 * 128];    // 4 warps x four 8x8 b16 matrices
    int i = SASS_DIFF_TID();
    unsigned lane = threadIdx.x & 31u, warp = threadIdx.x >> 5;
    unsigned a0 = A[4 * i], a1 = A[4 * i + 1], a2 = A[4 * i + 2], a3 = A[4 * i + 3];
    unsigned b0 = B[2 * i], b1 = B[2 * i + 1];
    float c0 = as_f32(C[4 * i]), c1 = as_f32(C[4 * i + 1]), c2 = as_f32(C[4 * i + 2]), c3 = as_f32(C[4 * i + 3]);
    float d[4];
    asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, "
                 "{%10,%11,%12,%13};"
                 : "=f"(d[0]), "=f"(d[1]), "=f"(d[2]), "=f"(d[3])
                 : "r"(a0), "r"(a1), "r"(a2), "r"(a3), "r"(b0), "r"(b1), "f"(c0), "f"(c1), "f"(c2), "f"(c3));
    for (int k = 0; k < 4; k++) PUT(k, bits(d[k]));
    asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, "
                 "{%10,%11,%12,%13};"
                 : "=f"(d[0]), "=f"(d[1]), "=f"(d[2]), "=f"(d[3])
                 : "r"(a0), "r"(a1), "r"(a2), "r"(a3), "r"(b0), "r"(b1), "f"(c0), "f"(c1), "f"(c2), "f"(c3));
    for (int k = 0; k < 4; k++) PUT(4 + k, bits(d[k]));
    unsigned h0, h1;
    asm volatile("mma.sync.aligned.m16n8k16.row.col.f16.f16.f16.f16 {%0,%1}, {%2,%3,%4,%5}, {%6,%7}, {%8,%9};"
                 : "=r"(h0), "=r"(h1)
                 : "r"(a0), "r"(a1), "r"(a2), "r"(a3), "r"(b0), "r"(b1), "r"(C[4 * i]), "r"(C[4 * i + 1]));
    PUT(8, h0);
    PUT(9, h1);
    asm volatile("mma.sync.aligned.m16n8k8.row.col.f32.f16.f16.f32 {%0,%1,%2,%3}, {%4,%5}, {%6}, "
                 "{%7,%8,%9,%10};"
                 : "=f"(d[0]), "=f"(d[1]), "=f"(d[2]), "=f"(d[3])
                 : "r"(a2), "r"(a3), "r"(b1), "f"(c3), "f"(c2), "f"(c1), "f"(c0));
    for (int k = 0; k < 4; k++) PUT(10 + k, bits(d[k]));
    double e0, e1;
    asm volatile("mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64 {%0,%1}, {%2}, {%3}, {%4,%5};"
                 : "=d"(e0), "=d"(e1)
                 : "d"(as_f64(D[4 * i])), "d"(as_f64(D[4 * i + 1])), "d"(as_f64(D[4 * i + 2])),
                   "d"(as_f64(D[4 * i + 3])));
    PUT(14, (unsigned)bits64(e0));
    PUT(15, (unsigned)(bits64(e0) >> 32));
    PUT(16, (unsigned)bits64(e1));
    PUT(17, (unsigned)(bits64(e1) >> 32));
    // ldmatrix: lane l names row l % 8 of matrix l / 8 (16-byte rows) in its warp's shared tile
    unsigned* tile = sh + warp * 128;
    tile[4 * lane] = a0;
    tile[4 * lane + 1] = a1;
    tile[4 * lane + 2] = a2;
    tile[4 * lane + 3] = a3;
    __syncwarp();
    unsigned addr = (unsigned)__cvta_generic_to_shared(tile + (lane >> 3) * 32 + (lane & 7) * 4);
    unsigned m0, m1, m2, m3;
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0,%1,%2,%3}, [%4];"
                 : "=r"(m0), "=r"(m1), "=r"(m2), "=r"(m3) : "r"(addr));
    PUT(18, m0);
    PUT(19, m1);
    PUT(20, m2);
    PUT(21, m3);
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0,%1,%2,%3}, [%4];"
                 : "=r"(m0), "=r"(m1), "=r"(m2), "=r"(m3) : "r"(addr));
    PUT(22, m0);
    PUT(23, m1);
    PUT(24, m2);
    PUT(25, m3);
    // wmma with both operands row-major: ptxas transposes B with MOVM.16.MT88.  A is this warp's A
    // tile, B the next warp's (16x16 halves each); the 16x16 f32 result of warp w goes row-major
    // to out[26 * n + 256 * w ...] (rows 26-33 of the result table)
    unsigned warps = (unsigned)n / 32u, gw = (unsigned)i / 32u;
    const __half* ta = (const __half*)(A + 128u * gw);
    const __half* tb = (const __half*)(A + 128u * ((gw + 1u) % warps));
    wmma::fragment<wmma::matrix_a, 16, 16, 16, __half, wmma::row_major> fa;
    wmma::fragment<wmma::matrix_b, 16, 16, 16, __half, wmma::row_major> fb;
    wmma::fragment<wmma::accumulator, 16, 16, 16, float> fc;
    wmma::load_matrix_sync(fa, ta, 16);
    wmma::load_matrix_sync(fb, tb, 16);
    wmma::fill_fragment(fc, 0.0f);
    wmma::mma_sync(fc, fa, fb, fc);
    wmma::store_matrix_sync((float*)(out + 26u * (unsigned)n + 256u * gw), fc, 16, wmma::mem_row_major);
}
