"""Inputs: the GPU catalog, the inventory, the workload mix and how their files are read."""
