// Shared by the SASS differential-test programs (programs/sass-diff/s-*, docs/sass-differential.md).
//
// Every s-* kernel reads its operands from arrays made by tools/make_sass_diff.py (edge cases
// first, then random values) and writes result k of operand i to out[k * n + i], so that a
// mismatch between the simulator and the H100 names both the operation (k) and the operands (i).
// Float operands travel as raw bit patterns (u32 / u64) so NaN payloads and -0.0 survive.
#pragma once

#include "simt_trace.cuh"   // the trace variant (kernel.trace.ptx) then defines the buffers `hw record` resets

#define SASS_DIFF_TID() (blockIdx.x * blockDim.x + threadIdx.x)
// result k of operand i (n operands per result)
#define PUT(k, v) (out[(k) * n + i] = (v))

__device__ __forceinline__ float as_f32(unsigned u) { return __uint_as_float(u); }
__device__ __forceinline__ unsigned bits(float f) { return __float_as_uint(f); }
__device__ __forceinline__ double as_f64(unsigned long long u) { return __longlong_as_double((long long)u); }
__device__ __forceinline__ unsigned long long bits64(double d) { return (unsigned long long)__double_as_longlong(d); }
