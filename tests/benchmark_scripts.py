"""Loading a script of ``benchmarks/`` as a module, for the tests of its functions."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

#: the folder of the benchmark scripts
BENCHMARKS = Path(__file__).resolve().parent.parent / "benchmarks"


def load_script(name: str) -> ModuleType:
    """``benchmarks/NAME.py`` as the module ``NAME``."""
    spec = importlib.util.spec_from_file_location(name, BENCHMARKS / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up here
    spec.loader.exec_module(module)
    return module
