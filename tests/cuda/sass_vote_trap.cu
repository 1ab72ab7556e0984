// A warp vote whether a predicate agrees across the active lanes (__uni_sync: VOTE.EQ, vote.uni) and a
// conditional __trap() (ptxas: BPT.TRAP): the kernel runs to its end unless an input asks for the trap.
extern "C" __global__ void sass_vote_trap(const unsigned* in, unsigned* out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    unsigned v = in[i];
    if (v == 0xdeadbeefu) __trap();
    unsigned m = __activemask();
    bool p = (v & 3u) != 0u;
    bool same = __uni_sync(m, p);
    bool q = (v >> 31) != 0u;
    bool same_q = __uni_sync(m, q);
    out[i] = (same ? 1u : 0u) | (same_q ? 2u : 0u);
}
