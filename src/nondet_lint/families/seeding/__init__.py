"""ND101-ND111: random number generators and seeds.

Pass 1 (``collect``) turns each module into typed facts (``facts``): per function an ordered
list of events (``events``: seed, call, use of an RNG, import, ...), the argparse options
and module constants that decide conditional seeding, and where values that vary between
runs flow into seeds.  Pass 2 (``program``) links the functions of all modules into one call graph
and runs every entry point in program order to decide which uses no seed covers;
``report`` turns the result into findings.  ``check.Seeding`` is the family's check;
``search.SearchSeeds`` (ND111, unseeded hyper-parameter search samplers) is decided in pass 1.
"""
