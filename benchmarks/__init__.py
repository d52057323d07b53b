"""Benchmarks: each module exposes run() -> dict and runs as python -m benchmarks.<name>."""
