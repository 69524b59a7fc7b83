"""Closed-form results of the papers (estimator variances) and their Monte Carlo checks."""
