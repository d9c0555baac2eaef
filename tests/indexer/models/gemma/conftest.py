"""What the Gemma tests share: the tiny model served as fake PyPI wheels."""

import pytest

from tests.fake_wheels import make_source
from tests.gemma_tiny import write_tiny_gemma


@pytest.fixture(scope="module")
def registry(tmp_path_factory):
    """The tiny model's folder as PyPI would serve it: its files zipped, chunked, wheeled and pinned."""
    root = tmp_path_factory.mktemp("registry")
    folder = write_tiny_gemma(root / "model")
    files = {p.relative_to(folder).as_posix(): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}
    return make_source(root / "pypi", files)
