// tools/stream_events.py: a kernel whose every block spins `cycles` SM cycles and records the
// global timer (ns, one clock for the whole GPU) at its start and end: out[2 b], out[2 b + 1].
extern "C" __global__ void stamped(long long cycles, unsigned long long* out) {
    unsigned long long g0, g1;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(g0));
    long long t0 = clock64();
    while (clock64() - t0 < cycles) {}
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(g1));
    if (threadIdx.x == 0) {
        out[2 * blockIdx.x] = g0;
        out[2 * blockIdx.x + 1] = g1;
    }
}
