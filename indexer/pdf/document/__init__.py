"""The pipeline's second half: the pages' lines, in reading order, made into the document's blocks (headings,
paragraphs, items, terms, tables), their kinds, the navigation left out, and the Markdown written."""
