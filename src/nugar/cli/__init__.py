"""The ``nugar`` command line: one module per sub-command, one shared module for the rest.

- ``main``: the parser, the dispatch to a sub-command, a reader that closed the pipe;
- ``common``: exit codes, the error mechanism (``CliError``, ``command``), argument types;
- ``play``, ``replay``, ``rules`` (``rules`` and ``moves``), ``engine`` (the text protocol of
  :mod:`nugar.protocol`), ``ai`` (``match``, ``tournament``, ``analyse``), ``serve`` (the web
  app) and ``solve`` (the sowing solver).

The command line sits on top of everything else: nothing in nugar imports it.
"""

from __future__ import annotations

from .main import build_parser, main

__all__ = ["build_parser", "main"]
