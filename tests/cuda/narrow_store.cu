// 64-bit arithmetic narrowed on store: nvcc stores the low half of a 64-bit register
// (`st.global.u32 [%rd], %rd`), and narrow loads widen straight into 64-bit registers.
extern "C" __global__ void narrow_store(const long long* x, const unsigned char* b, const short* h,
                                        int* out, long long* wide, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    long long v = x[i] * 3 + 0x123456789LL;
    out[3 * i + 0] = (int)(v >> 11);
    out[3 * i + 1] = (int)(x[i] ^ (x[i] >> 29));
    out[3 * i + 2] = (int)v;
    wide[2 * i + 0] = (long long)b[i] << 40 | (unsigned long long)(unsigned short)h[i];
    wide[2 * i + 1] = (long long)h[i] * (long long)b[i] - (long long)x[i];
}
