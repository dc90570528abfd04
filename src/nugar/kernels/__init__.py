"""Numba-compiled hot paths shared by the game objects, the search and the simulators.

Every rule is implemented once, here, in numba's subset: the friendly ``Game`` classes in
``nugar.rules`` call these functions, and so do the AI and the batched simulators. See
``docs/architecture.md`` for the conventions (state arrays, action codes, outcome codes).
"""
