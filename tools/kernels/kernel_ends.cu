// What a kernel's start and end cost beside its warps' own work (tools/kernel_ends.py): an empty
// kernel, one that may store a word a thread (flag: the same SASS with and without the store), and
// the same followed by a clock64 spin, so that its store has long reached memory when the warp
// exits.  Nsight Compute's per-warp stall counters then say how long each warp lived and where it
// waited (no_instruction at its first code line, drain at its EXIT); the rest of the kernel's
// cycles are the launch's and the end's.

extern "C" __global__ void k_empty() {}

extern "C" __global__ void k_store(int* out, int flag) {
    if (flag) out[blockIdx.x * blockDim.x + threadIdx.x] = flag;
}

extern "C" __global__ void k_store_spin(int* out, int flag, int spin) {
    if (flag) out[blockIdx.x * blockDim.x + threadIdx.x] = flag;
    long long t0 = clock64();
    while (clock64() - t0 < spin) {
    }
}
