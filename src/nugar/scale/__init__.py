"""Scale-out: games, matches and self-play on a Ray cluster, and the evaluation tuning.

Nothing here is imported by ``import nugar`` or by the ``nugar`` command line until a command
asks for it (``--ray``, ``nugar selfplay``); Ray itself is imported only by
:mod:`nugar.scale.ray_runner`, and only when a cluster is asked for. ``pip install -e
".[ray]"`` (from a checkout) brings Ray and pyarrow. docs/scaling.md says how to run a cluster.
"""
