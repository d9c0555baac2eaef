"""benchmarks/ and testbed/ as packages run from the repository's root (`python -m benchmarks.NAME`): they edit
no sys.path and never import tests/ (the tests import them, not the reverse; testbed imports no benchmark),
and a benchmark imports its own modules by their full name, so that none shadows, or is shadowed by, a module
of the product (a bare `structure` was both benchmarks/structure/ and indexer/pdf/document/structure.py)."""

import ast
import sys
from functools import cache
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
BENCHMARKS, TESTBED = ROOT / "benchmarks", ROOT / "testbed"


def sources(folder: Path) -> list[Path]:
    return sorted(p for p in folder.rglob("*.py") if "__pycache__" not in p.parts)


@cache
def imports(path: Path) -> list[str]:
    names = []
    for node in ast.walk(ast.parse(path.read_text("utf-8"))):
        if isinstance(node, ast.Import):
            names += [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.level == 0:
            names.append(node.module)
    return names


def test_every_folder_of_code_is_a_package():
    folders = {p.parent for p in sources(BENCHMARKS) + sources(TESTBED)}
    assert sorted(str(f.relative_to(ROOT)) for f in folders if not (f / "__init__.py").is_file()) == []


def test_no_sys_path_edit_and_no_import_of_the_tests():
    for path in sources(BENCHMARKS) + sources(TESTBED):
        where = path.relative_to(ROOT)
        assert "sys.path" not in path.read_text("utf-8"), where  # in a child's `-c` code string too
        assert not [name for name in imports(path) if name.split(".")[0] == "tests"], where
    for path in sources(TESTBED):
        assert not [name for name in imports(path) if name.split(".")[0] == "benchmarks"], path.relative_to(ROOT)


def test_a_benchmark_imports_its_own_modules_by_their_full_name():
    own = {p.stem for p in sources(BENCHMARKS)} | {p.parent.name for p in BENCHMARKS.rglob("__init__.py")}
    bare = own - set(sys.stdlib_module_names) - {"__init__", "benchmarks"}  # `import html` is the stdlib's
    for path in sources(BENCHMARKS):
        assert not [name for name in imports(path) if name.split(".")[0] in bare], path.relative_to(ROOT)
