"""The embeddable widget as served by GET /widget.js: the shared front-end core joined with the widget.

The table page loads core.js and app.js as two files; a site owner includes the widget with ONE script
tag, so the server joins core.js and widget.js into a single script. Both go inside one function: the
core's names stay out of the host page's globals, and the widget's code sees them.
"""

from pathlib import Path

WIDGET_PARTS = ("core.js", "widget.js")


def widget_script(static: Path) -> str:
    """core.js then widget.js, read from `static` when called (once, at app creation)."""
    parts = [f"// ---- {name} ----\n{(static / name).read_text(encoding='utf-8').rstrip()}\n" for name in WIDGET_PARTS]
    return (
        "// rulesqa widget: core.js and widget.js, joined by the server.\n"
        '(() => {\n"use strict";\n\n' + "\n".join(parts) + "})();\n"
    )
