"""GPU Share Planner: pack workloads onto GPUs under passthrough, vGPU, MIG and a remote pool."""
