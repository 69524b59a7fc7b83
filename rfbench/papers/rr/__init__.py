"""Rahimi and Recht 2007, random features: Table 1 (``report``)."""
