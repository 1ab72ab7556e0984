"""Hardware runs (needs a CUDA GPU): recording references for validation."""
