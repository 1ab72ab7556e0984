// Unfused: tc-only (see manifest.yaml for the launches).
#include "../../include/fusion_unfused.cuh"
