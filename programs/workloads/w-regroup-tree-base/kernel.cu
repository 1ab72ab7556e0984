// w-regroup-tree-*: seed 000's GDT-like decision-tree kernel (see ../include/seed000_tree.cuh).
// The -index and -permuted programs run this same PTX (their manifests' kernel_file points here).
#include "../../include/seed000_tree.cuh"
