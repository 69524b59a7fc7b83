"""The Bochner tutorial: a 1-D kernel estimated from K random features, error against K (``report``)."""
