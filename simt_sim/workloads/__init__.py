"""Host-side parts of the seed workloads (numpy only): inputs, numpy models of the user kernels,
and seed 000's branch predictor and regrouping (regroup.py)."""
