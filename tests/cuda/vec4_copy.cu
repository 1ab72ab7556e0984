// Array-of-structs and vector loads: float4 / int2 loads and stores (ld.global.v4.f32, v2.u32).
struct Particle { float4 pos; int2 id; };

extern "C" __global__ void vec4_copy(const Particle* in, float4* pos, int* ids, float dt, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    Particle p = in[i];
    float4 q = make_float4(p.pos.x + dt * p.pos.w, p.pos.y * 2.0f, p.pos.z - p.pos.x, p.pos.w);
    pos[i] = q;
    ids[2 * i] = p.id.x + p.id.y;
    ids[2 * i + 1] = p.id.x ^ p.id.y;
}
