"""The rule families, one package each: its pass-1 collection, pass-2 judgement and fixes.

``registry`` lists every check and maps each code to the one check that decides it.
A family uses the general analyses (``nondet_lint.analysis``) and never the engine.
"""
