// Kernels that fault, one per kind of runtime fault (tests/test_fault_model.py): each faults in
// thread `who` only (or, for the deadlock and the endless loop, in every warp alike).
extern "C" __global__ void trap_at(int *out, int who)
{
    int i = threadIdx.x;
    if (i == who)
        __trap();
    out[i] = i * 3;
}

extern "C" __global__ void oob_global(int *out, int who)
{
    int i = threadIdx.x;
    out[i + (i == who ? (1 << 24) : 0)] = i * 3;
}

// 256 words: too many for ptxas to keep in registers, so the array stays in local memory (a small
// one becomes registers, where the store out of range is dropped, as on the GPU: nothing faults)
extern "C" __global__ void oob_local(int *out, int who, int far)
{
    int a[256];
    int i = threadIdx.x;
    for (int k = 0; k < 256; k++)
        a[k] = out[k & 63] + k * i;
    a[i == who ? far : (i * 5) & 255] = i;
    out[i] = a[(i * 7) & 255];
}

extern "C" __global__ void misaligned(int *out, int who)
{
    int i = threadIdx.x;
    int *p = (int *)((char *)out + (i == who ? 2 : 0));
    p[i] = i * 3;
}

// warp 0 waits at named barrier 1, warp 1 at named barrier 2, each for 64 threads: neither completes
extern "C" __global__ void two_barriers(int *out, int who)
{
    int i = threadIdx.x;
    out[i] = i;
    if (i < 32)
        asm volatile("bar.sync 1, 64;");
    else
        asm volatile("bar.sync 2, 64;");
    out[i] = i * 3 + who;
}

// never ends: out[0] is never `who` (the host passes a value no thread writes)
extern "C" __global__ void endless(volatile int *out, int who)
{
    int i = threadIdx.x;
    while (out[0] != who)
        out[1 + i] = out[1 + i] + 1;
}
