"""The shape of the code, checked so it cannot drift back (docs/architecture.md):

- the layer contract of ``pyproject.toml`` (import-linter): imports point down only, and no
  package has a cycle among its modules;
- outside ``nugar.rules`` nothing branches on a family's name, a game's display name, a
  preset's name or an AI profile's name (``dara``, ``dala``, ``kalah``, ``dracala``,
  ``dara-niger``, ...): such knowledge lives on the family descriptor, the AI profiles and in
  the options;
- no ``type: ignore[attr-defined]`` reaches past a class's public surface;
- no class of the web app (``nugar.server``) is longer than :data:`CLASS_LINES` lines: each
  does one job (issue 38: the game session was split into its decisions, offers, timing and
  the computer's turns);
- no test module imports another (fixtures in ``conftest.py``, helpers in plain modules);
- the module map of docs/architecture.md names every module.
"""

from __future__ import annotations

import ast
import re
import subprocess
import sys
from pathlib import Path

import pytest

import nugar
from nugar.rules.family import FAMILIES, ai_profiles

ROOT = Path(__file__).resolve().parents[1]
SRC = ROOT / "src" / "nugar"
RULES = SRC / "rules"

#: the words that name a family, a game (its display name, its presets' names in lower case)
#: or an AI profile: comparing with one of them, or keying a dict by one, is a branch on a name
NAMES = (frozenset(FAMILIES) | {p.game for p in nugar.PRESETS.values()}
         | {p.name for p in nugar.PRESETS.values()} | {p.name for p in ai_profiles()})


def _sources() -> list[Path]:
    return sorted(p for p in SRC.rglob("*.py") if RULES not in p.parents)


def _named_branches(path: Path, root: Path = ROOT) -> list[str]:
    """Comparisons with a family or game name, and dicts keyed by one, in a source file."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        strings: list[ast.expr] = []
        if isinstance(node, ast.Compare):
            for side in [node.left, *node.comparators]:
                strings.extend(side.elts if isinstance(side, ast.Tuple | ast.List | ast.Set)
                               else [side])
        elif isinstance(node, ast.Dict):
            strings.extend(k for k in node.keys if k is not None)
        for s in strings:
            if isinstance(s, ast.Constant) and s.value in NAMES:
                found.append(f"{path.relative_to(root)}:{node.lineno}: {s.value!r}")
    return found


def test_layer_contract_is_kept() -> None:
    # in a process of its own: import-linter reconfigures logging (it disabled the loggers of
    # later tests), and it reads pyproject.toml from the working directory
    code = ("import sys; from importlinter.cli import lint_imports; "
            "sys.exit(lint_imports(no_cache=True, no_logo=True))")
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True,
                          text=True, check=False)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-2000:]


def test_the_names_include_the_lower_case_ones() -> None:
    assert {"dara", "dala", "kalah", "dracala", "dara-niger", "dara-sheet"} <= NAMES
    assert {"alignment", "sowing", "Dara", "Dala", "Kalah", "Dracala"} <= NAMES


def test_no_branch_on_a_family_or_game_name_outside_rules() -> None:
    found = [hit for path in _sources() for hit in _named_branches(path)]
    assert found == []


def test_the_name_check_sees_a_branch(tmp_path: Path) -> None:
    """The check above would see the kinds of branch it forbids."""
    sample = tmp_path / "sample.py"
    sample.write_text('if rules.family == "sowing": pass\n'
                      'if game in ("Dala", "x"): pass\n'
                      'SCALE = {"alignment": 1}\n'
                      'if rules.name == "dara-niger": pass\n'
                      'LEVELS = {"kalah": {1: "random"}}\n'
                      'if profile in ("dala", "x"): pass\n', encoding="utf-8")
    assert len(_named_branches(sample, tmp_path)) == 6


#: the most lines a class of ``nugar.server`` may span (its ``class`` line to its last)
CLASS_LINES = 300


def _long_classes(path: Path, root: Path = ROOT, limit: int = CLASS_LINES) -> list[str]:
    """The classes of a source file (nested ones too) longer than ``limit`` lines."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ClassDef):
            length = (node.end_lineno or node.lineno) - node.lineno + 1
            if length > limit:
                found.append(f"{path.relative_to(root)}:{node.lineno}: {node.name} has "
                             f"{length} lines")
    return found


def test_no_class_of_the_server_is_over_its_length() -> None:
    paths = sorted((SRC / "server").rglob("*.py"))
    assert len(paths) > 40
    assert [hit for path in paths for hit in _long_classes(path)] == []


def test_the_length_check_sees_a_long_class(tmp_path: Path) -> None:
    sample = tmp_path / "sample.py"
    body = "".join(f"    def m{i}(self) -> int:\n        return {i}\n" for i in range(150))
    sample.write_text("class Short:\n    pass\n\n\nclass Long:\n" + body, encoding="utf-8")
    assert _long_classes(sample, tmp_path) == ["sample.py:5: Long has 301 lines"]


def test_no_type_ignore_for_attributes() -> None:
    marker = "type: ignore" + "[attr-defined]"
    offenders = [str(p.relative_to(ROOT)) for p in SRC.rglob("*.py")
                 if marker in p.read_text(encoding="utf-8")]
    assert offenders == []


def test_kernels_import_nothing_above_them() -> None:
    """Also part of the layer contract; said here plainly for the reader."""
    paths = list((SRC / "kernels").glob("*.py"))
    assert paths
    for path in paths:
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and node.level >= 2:
                pytest.fail(f"{path.name} imports {'.' * node.level}{node.module}")
            if isinstance(node, ast.Import | ast.ImportFrom):
                module = node.module if isinstance(node, ast.ImportFrom) else None
                names = [module] if module else [a.name for a in node.names]
                for name in names:
                    if name and name.startswith("nugar") and not name.startswith(
                            "nugar.kernels"):
                        pytest.fail(f"{path.name} imports {name}")


def test_importing_the_rest_stays_free_of_jax() -> None:
    """JAX (the ``jax`` extra) is imported by ``nugar.jax`` alone: the core package, the command
    line, the server and the other faces load neither JAX nor pgx."""
    code = ("import importlib.util, sys, nugar, nugar.cli, nugar.ai, nugar.solver, nugar.server\n"
            "import nugar.envs.batch, nugar.envs.encoding, nugar.scale\n"
            "for name, lib in (('gymnasium', 'gymnasium'), ('pettingzoo', 'pettingzoo'),\n"
            "                  ('openspiel', 'pyspiel')):\n"
            "    if importlib.util.find_spec(lib) is not None:\n"
            "        __import__('nugar.envs.' + name)\n"
            "print(sorted(m for m in sys.modules if m.split('.')[0] in ('jax', 'jaxlib', 'pgx')\n"
            "             or m.startswith('nugar.jax')))\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True, timeout=120).stdout
    assert out.strip() == "[]"


def _test_module_imports(path: Path) -> list[str]:
    """The test modules (``test_*``) a file of ``tests/`` imports, at any depth."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        names = ([a.name for a in node.names] if isinstance(node, ast.Import)
                 else [node.module or ""] if isinstance(node, ast.ImportFrom) else [])
        found += [f"{path.name}:{node.lineno}: {n}" for n in names
                  if n.split(".")[0].startswith("test_")]
    return found


def test_no_test_module_imports_another() -> None:
    """Fixtures live in ``conftest.py`` and helpers in plain modules beside it (its docstring
    lists them): a test module never imports another one, so each runs alone and none
    depends on another's private parts."""
    tests = ROOT / "tests"
    found = [hit for p in sorted(tests.glob("*.py")) for hit in _test_module_imports(p)]
    assert found == []


def test_the_import_scan_sees_a_test_module(tmp_path: Path) -> None:
    sample = tmp_path / "test_sample.py"
    sample.write_text("def f():\n    from test_other import helper\n    import test_more\n")
    assert _test_module_imports(sample) == ["test_sample.py:2: test_other",
                                            "test_sample.py:3: test_more"]


def _listed_in_the_map(text: str) -> set[str]:
    """The paths the first column of docs/architecture.md's module map names (a row may name
    several, a folder ends with ``/``)."""
    start = text.index("## Module map")
    section = text[start:text.index("\n## ", start + 1)]
    found: set[str] = set()
    for line in section.splitlines():
        if line.startswith("| `"):
            found |= set(re.findall(r"`([^`]+)`", line.split("|")[1]))
    return found


def _unlisted(root: Path, listed: set[str]) -> list[str]:
    """The modules under ``root`` the map does not name: every module, and every package's
    ``__init__.py`` that holds more than its docstring, unless a folder above it is named."""
    missing = []
    for path in sorted(root.rglob("*.py")):
        rel = path.relative_to(root).as_posix()
        if path.name == "__init__.py":
            body = ast.parse(path.read_text(encoding="utf-8")).body
            if all(isinstance(n, ast.Expr) and isinstance(n.value, ast.Constant) for n in body):
                continue
        parts = rel.split("/")
        folders = {"/".join(parts[:i]) + "/" for i in range(1, len(parts))}
        if rel not in listed and not folders & listed:
            missing.append(rel)
    return missing


def test_the_module_map_lists_every_module() -> None:
    """docs/architecture.md's module map names every module of the package, so a reader finds
    each one's job there (a new module without a row fails here)."""
    listed = _listed_in_the_map((ROOT / "docs" / "architecture.md").read_text(encoding="utf-8"))
    assert _unlisted(SRC, listed) == []


def test_the_map_check_sees_a_missing_module(tmp_path: Path) -> None:
    (tmp_path / "pkg" / "migrations").mkdir(parents=True)
    for name, text in (("pkg/__init__.py", '"""Only a docstring."""\n'),
                       ("pkg/shown.py", ""), ("pkg/hidden.py", ""),
                       ("pkg/migrations/rev1.py", ""), ("face.py", "")):
        (tmp_path / name).write_text(text)
    (tmp_path / "pkg2").mkdir()
    (tmp_path / "pkg2" / "__init__.py").write_text("from .x import y\n")
    listed = {"pkg/shown.py", "pkg/migrations/", "face.py"}
    assert _unlisted(tmp_path, listed) == ["pkg/hidden.py", "pkg2/__init__.py"]
