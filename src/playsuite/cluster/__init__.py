"""Cluster execution helpers: Slurm accounting for the cost figure (docs/cluster.md)."""
