"""Rulebook PDFs generated once per session (testbed/pdf_fixtures.py): never committed, never downloaded."""

import shutil
from pathlib import Path

import pytest

from testbed import pdf_fixtures


@pytest.fixture(scope="session")
def pdf_dir(tmp_path_factory) -> Path:
    return tmp_path_factory.mktemp("pdfs")


@pytest.fixture(scope="session")
def labelled_pdf(pdf_dir):
    path = pdf_dir / "zorglub-labels.pdf"
    return path, pdf_fixtures.reportlab_rulebook(path, labels=True)


@pytest.fixture(scope="session")
def printed_pdf(pdf_dir):
    path = pdf_dir / "zorglub-printed.pdf"
    return path, pdf_fixtures.reportlab_rulebook(path, labels=False)


@pytest.fixture(scope="session")
def chromium_pdf(pdf_dir):
    if not Path("/usr/bin/chromium").exists():
        pytest.skip("Debian's chromium is missing (make browser-deps)")
    pytest.importorskip("playwright.sync_api")
    path = pdf_dir / "jungle-chromium.pdf"
    return path, pdf_fixtures.chromium_rulebook(path)


@pytest.fixture(scope="session")
def scanned_pdf(pdf_dir, labelled_pdf):
    path = pdf_dir / "zorglub-scan.pdf"
    pdf_fixtures.scanned_rulebook(labelled_pdf[0], path)
    return path, labelled_pdf[1]


@pytest.fixture(scope="session")
def tesseract():
    if shutil.which("tesseract") is None:
        pytest.skip("tesseract is missing (make ocr-deps)")
