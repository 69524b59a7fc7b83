"""Quasi-Monte Carlo feature maps (Avron, Sindhwani, Yang & Mahoney): point sets on the unit
cube, the box discrepancy of a frequency sequence for the Gaussian kernel, and sequences
adapted to it by minimizing that discrepancy."""
