"""The cited page itself: a PDF-backed game's page rendered as a WebP image (pypdfium2), optionally with a
passage's lines highlighted, kept in a bounded in-memory cache.

The PDF is the file the game's header names (`source:`) in the corpus folder; the page is its printed number,
mapped to the PDF's page by the import's layout sidecar (`ID.layout.json`), else taken as the physical one; a
spread's printed page is its half of the PDF page.
"""

import json
import threading
from collections import OrderedDict
from io import BytesIO
from pathlib import Path

from indexer.corpus import Game
from indexer.errors import RulesqaError
from indexer.pdf.document.writer import LAYOUT_SUFFIX

MAX_SIDE = 1600  # pixels: sharp enough to pinch-zoom a rulebook page on a phone, about 150-300 KB
CACHE_BYTES = 64 * 1024 * 1024
HIGHLIGHT = (255, 214, 0, 90)


class PageNotFound(RulesqaError):
    """No image for this page: unknown page, or a game without PDF (404 with this French message)."""


class PageImages:
    def __init__(self, corpus_dir: Path, max_side: int = MAX_SIDE, cache_bytes: int = CACHE_BYTES):
        self.corpus_dir = Path(corpus_dir)
        self.max_side = max_side
        self.cache_bytes = cache_bytes
        self._cache: OrderedDict[tuple, bytes] = OrderedDict()
        self._size = 0
        self._lock = threading.Lock()  # pdfium is not thread-safe, and the cache is shared by worker threads

    def pdf_of(self, game: Game) -> Path | None:
        if not game.source:
            return None
        path = self.corpus_dir / game.source
        return path if path.is_file() else None

    def _layout(self, game: Game) -> dict:
        path = self.corpus_dir / f"{game.id}{LAYOUT_SUFFIX}"
        try:
            return json.loads(path.read_text("utf-8"))
        except (OSError, ValueError):
            return {}

    def _page_index(self, game: Game, label: str, count: int, layout: dict) -> tuple[int, int]:
        """(the PDF page, the half of a spread it is: 1 left, 2 right, 0 the whole page)."""
        if label in layout.get("pages", {}):
            where = layout["pages"][label]
            return (int(where["page"]), int(where.get("half", 0))) if isinstance(where, dict) else (int(where), 0)
        if not layout and label.isdigit() and 1 <= int(label) <= count:
            return int(label) - 1, 0
        raise PageNotFound(f"page « {label} » introuvable dans le livret de {game.title}")

    def boxes(self, game: Game, label: str, lines: list[str]) -> list[list[float]]:
        """Where the given passage lines are printed on this page (fractions of the page), when known."""
        wanted = {_key(line) for line in lines}
        out = []
        for item in self._layout(game).get("lines", []):
            if _key(item["text"]) in wanted:
                out += [box[1:] for box in item["boxes"] if str(box[0]) == label]
        return out

    def image(self, game: Game, label: str, passage_lines: list[str] = ()) -> bytes:
        pdf = self.pdf_of(game)
        if pdf is None:
            raise PageNotFound(f"pas de livret PDF pour {game.title} : seules les citations texte existent")
        boxes = self.boxes(game, label, list(passage_lines)) if passage_lines else []
        key = (game.id, label, pdf.stat().st_mtime_ns, tuple(map(tuple, boxes)))
        with self._lock:
            if key in self._cache:
                self._cache.move_to_end(key)
                return self._cache[key]
            data = self._render(game, pdf, label, boxes)
            self._cache[key] = data
            self._size += len(data)
            while self._size > self.cache_bytes and len(self._cache) > 1:
                self._size -= len(self._cache.popitem(last=False)[1])
            return data

    def _render(self, game: Game, pdf: Path, label: str, boxes: list) -> bytes:
        import pypdfium2 as pdfium
        from PIL import Image, ImageDraw

        doc = pdfium.PdfDocument(str(pdf))
        try:
            index, half = self._page_index(game, label, len(doc), self._layout(game))
            if not 0 <= index < len(doc):
                raise PageNotFound(f"page « {label} » introuvable dans le livret de {game.title}")
            page = doc[index]
            width, height = page.get_size()
            if half:  # a spread's printed page: its half, at the size of a page
                width /= 2
            image = page.render(scale=self.max_side / max(width, height)).to_pil().convert("RGB")
            page.close()
            if half:
                middle = image.width // 2
                image = image.crop((0, 0, middle, image.height) if half == 1 else (middle, 0, image.width, image.height))
        finally:
            doc.close()
        if boxes:
            overlay = Image.new("RGBA", image.size, (0, 0, 0, 0))
            draw = ImageDraw.Draw(overlay)
            w, h = image.size
            for x0, y0, x1, y1 in boxes:
                draw.rectangle((x0 * w - 3, y0 * h - 2, x1 * w + 3, y1 * h + 2), fill=HIGHLIGHT)
            image = Image.alpha_composite(image.convert("RGBA"), overlay).convert("RGB")
        buf = BytesIO()
        image.save(buf, "WEBP", quality=80, method=4)
        return buf.getvalue()


def _key(text: str) -> str:
    text = text.strip()
    return text[2:].strip() if text.startswith("- ") else text
