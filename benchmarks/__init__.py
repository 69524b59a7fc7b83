"""Benchmarks of `make bench` (a regular package: scikit-learn-extra installs a top-level `benchmarks` of its own)."""
