"""The embeddable widget as served by GET /widget.js: the shared front-end core joined with the widget.

The table page loads core.js and app.js as two files; a site owner includes the widget with ONE script
tag, so the server joins core.js and widget.js into a single script. Both go inside one function: the
core's names stay out of the host page's globals, and the widget's code sees them.
"""

import hashlib
from pathlib import Path

from fastapi import Request, Response

WIDGET_PARTS = ("core.js", "widget.js")
# A site's visitors keep the widget an hour, then revalidate it (a 304 while it has not changed).
WIDGET_CACHE = "public, max-age=3600"


def widget_script(static: Path) -> str:
    """core.js then widget.js, read from `static` when called (once, at app creation)."""
    parts = [f"// ---- {name} ----\n{(static / name).read_text(encoding='utf-8').rstrip()}\n" for name in WIDGET_PARTS]
    return (
        "// rulesqa widget: core.js and widget.js, joined by the server.\n"
        '(() => {\n"use strict";\n\n' + "\n".join(parts) + "})();\n"
    )


class WidgetScript:
    """GET /widget.js: the joined script with a strong ETag (its hash) and Cache-Control; 304 on a match."""

    def __init__(self, static: Path):
        self.body = widget_script(static).encode("utf-8")
        self.etag = '"' + hashlib.sha256(self.body).hexdigest()[:32] + '"'

    def matches(self, if_none_match: str | None) -> bool:
        if not if_none_match:
            return False
        tags = [tag.strip().removeprefix("W/") for tag in if_none_match.split(",")]
        return "*" in tags or self.etag in tags

    def response(self, request: Request) -> Response:
        headers = {"ETag": self.etag, "Cache-Control": WIDGET_CACHE}
        if self.matches(request.headers.get("if-none-match")):
            return Response(status_code=304, headers=headers)
        return Response(self.body, media_type="text/javascript; charset=utf-8", headers=headers)
