"""ND201-ND209: GPU kernels and the determinism switches.

``gpu`` collects the switches, GPU selectors and environment settings of each module and
views them per program; ``switches`` holds the switch rules (ND201, ND202, ND205, ND206,
ND209), ``ops`` the non-deterministic op tables (ND203, ND204, ND208) and ``custom`` custom
kernels (ND207).
"""
