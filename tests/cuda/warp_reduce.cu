// Warp-level reductions and matching (sm_80+): __reduce_*_sync, __match_any_sync, __ballot_sync.
extern "C" __global__ void warp_reduce(const unsigned* x, unsigned* out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    unsigned v = i < n ? x[i] : 0u;
    unsigned mask = __ballot_sync(0xffffffffu, i < n);
    if (i >= n) return;
    unsigned sum = __reduce_add_sync(mask, v);
    unsigned mn = __reduce_min_sync(mask, v);
    unsigned mx = __reduce_max_sync(mask, (int)v);
    unsigned orr = __reduce_or_sync(mask, v);
    unsigned same = __match_any_sync(mask, v & 7u);
    out[5 * i + 0] = sum;
    out[5 * i + 1] = mn;
    out[5 * i + 2] = mx;
    out[5 * i + 3] = orr;
    out[5 * i + 4] = same;
}
