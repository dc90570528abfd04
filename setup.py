"""The build step that pyproject.toml cannot say: the message catalogs compiled into the wheel.

Every ``nugar/locale/<lang>/LC_MESSAGES/<domain>.po`` gets its ``.mo`` beside it in the build
folder, made by :func:`nugar.i18n.compile_po` (Babel's compiler), the same function a checkout
uses when it finds no compiled file. Everything else is in pyproject.toml.
"""

from __future__ import annotations

import importlib.util
from collections.abc import Callable
from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py


def _compile_po() -> Callable[[bytes, str], bytes]:
    spec = importlib.util.spec_from_file_location(
        "_nugar_i18n", Path(__file__).parent / "src" / "nugar" / "i18n.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    compile_po: Callable[[bytes, str], bytes] = module.compile_po
    return compile_po


class BuildWithCatalogs(build_py):
    def run(self) -> None:
        super().run()
        compile_po = _compile_po()
        for po in Path(self.build_lib, "nugar", "locale").glob("*/LC_MESSAGES/*.po"):
            lang = po.parent.parent.name
            po.with_suffix(".mo").write_bytes(compile_po(po.read_bytes(), lang))


setup(cmdclass={"build_py": BuildWithCatalogs})
