"""ND401: frameworks not pinned in the project's requirement files.

``requirements`` reads requirement files (pip, pyproject, conda, setup.py); ``check``
judges them in pass 1 and decides, in pass 2, whether a project pins each framework it
imports.
"""
