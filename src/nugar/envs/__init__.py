"""Research interfaces: PettingZoo, Gymnasium and OpenSpiel environments over the nugar kernels.

The adapters need the optional extra ``rl``, from a checkout ``pip install -e ".[rl]"``
(pettingzoo, gymnasium, open_spiel); ``nugar.envs.encoding`` (observations and the flat
action space) and the batched simulator ``nugar.envs.batch`` need only NumPy and numba.
Import the adapter you want:

- ``nugar.envs.pettingzoo.env("dara")``: two-player AEC environment;
- ``nugar.envs.gymnasium.NugarEnv("kalah", opponent="level:3")`` (or
  ``gymnasium.make("nugar/kalah-v0")``): one player against a built-in agent;
  ``NugarVectorEnv("kalah", 1024, opponent="random")`` many of them over the batched simulator;
- ``nugar.envs.openspiel``: registers ``nugar_dara`` ... ``nugar_dracala`` with ``pyspiel``
  (games and states pickle); ``bot("level:8", game)`` makes a ``pyspiel.Bot`` of an agent;
- ``nugar.envs.batch.BatchSimulator("kalah", 1024)``: many games stepped at once, statefully
  or in a functional form (``step_states``) for search.

``docs/envs.md`` documents the action codes and observation planes of every preset.
"""

from __future__ import annotations
