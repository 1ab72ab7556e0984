// An empty kernel, one warp a launch (tools/launch_sequence.py: back-to-back launches in the model)
extern "C" __global__ void empty_k() {}
