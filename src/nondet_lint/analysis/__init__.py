"""Project-wide analysis: the index every module contributes to, read by the checks."""
