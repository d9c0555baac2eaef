"""The pipeline's first half: each page read on its own into lines (pdfium's glyphs or poppler's layout, or OCR),
with its tables, ruled lines, links and printed number."""
