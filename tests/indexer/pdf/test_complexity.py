"""No function of the PDF import (indexer/pdf) above grade C in radon's cyclomatic complexity (issue 42): each
branch, loop and boolean operator counts, and a function past 20 of them is cut into helpers that say their
job. An offender is printed with its grade and score, so that the function to cut is plain."""

from pathlib import Path

from radon.complexity import cc_rank, cc_visit

import indexer.pdf

PDF_PACKAGE = Path(indexer.pdf.__file__).parent
WORST = "C"  # grades run A (simplest) to F: D starts at a complexity of 21


def _blocks(source: str):
    """Every function and method of a module, each graded on its own: a function's closures and a class's
    methods and inner classes apart from what holds them (radon counts them apart too)."""
    for block in cc_visit(source):
        if not getattr(block, "is_method", False):  # radon lists a class's methods beside it too
            yield from _graded(block)


def _graded(block):
    if hasattr(block, "methods"):  # a class: its methods are graded, not the class (their mean)
        for inner in (*block.methods, *block.inner_classes):
            yield from _graded(inner)
        return
    yield block
    for inner in block.closures:
        yield from _graded(inner)


def _offenders() -> list[str]:
    out = []
    for path in sorted(PDF_PACKAGE.rglob("*.py")):
        for block in _blocks(path.read_text(encoding="utf-8")):
            grade = cc_rank(block.complexity)
            if grade > WORST:
                out.append(f"{path.name}:{block.lineno} {block.fullname} - {grade} ({block.complexity})")
    return out


def test_every_function_of_the_pdf_import_ranks_c_or_better():
    offenders = _offenders()
    assert not offenders, "above grade C:\n" + "\n".join(offenders)


def test_the_gate_sees_what_it_grades():
    # A gate that read no file, or no function, would pass for nothing.
    assert len(list(PDF_PACKAGE.rglob("*.py"))) >= 10
    too_many = " and ".join(["a", "b", "c"] * 8)
    source = f"class K:\n    def m(self, a, b, c):\n        def inner():\n            return {too_many}\n        return 1\n"
    blocks = list(_blocks(source))
    assert [b.fullname for b in blocks] == ["K.m", "inner"]
    assert [cc_rank(b.complexity) > WORST for b in blocks] == [False, True]  # the closure graded on its own
