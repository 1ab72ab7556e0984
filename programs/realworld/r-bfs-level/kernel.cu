#include "../../include/simt_trace.cuh"

// Every node on the frontier (level == cur) gives its unvisited neighbours level cur + 1.
extern "C" __global__ void bfs_level(const int* rowptr, const int* edges, int* level, int* changed,
                                     int n, int cur, int unvisited) {
    SIMT_SITE(1);
    int v = blockIdx.x * blockDim.x + threadIdx.x;
    if (v < n && level[v] == cur) {
        SIMT_SITE(2);
        int end = rowptr[v + 1];
        for (int e = rowptr[v]; e < end; ++e) {
            int u = edges[e];
            if (level[u] == unvisited) {
                level[u] = cur + 1;
                *changed = 1;
            }
        }
    }
    SIMT_SITE(3);
}
