"""Research interfaces: PettingZoo, Gymnasium and OpenSpiel environments over the nugar kernels.

The adapters need the optional extra ``rl``, from a checkout ``pip install -e ".[rl]"``
(pettingzoo, gymnasium, open_spiel); ``nugar.envs.encoding`` (observations and the flat
action space) and the batched simulator ``nugar.envs.batch`` need only NumPy and numba.
Import the adapter you want:

- ``nugar.envs.pettingzoo.env("dara")``: two-player AEC environment;
- ``nugar.envs.gymnasium.NugarEnv("kalah", opponent="level:3")`` (or
  ``gymnasium.make("nugar/kalah-v0")``): one player against a built-in agent;
- ``nugar.envs.openspiel``: registers ``nugar_dara`` ... ``nugar_dracala`` with ``pyspiel``;
- ``nugar.envs.batch.BatchSimulator("kalah", 1024)``: many games stepped at once.

``docs/envs.md`` documents the action codes and observation planes of every preset.
"""

from __future__ import annotations
