"""Rulebook PDFs that reproduce, one trap at a time, what real producers do (TeX, Texinfo, DTP exports, scans):
text drawn without space glyphs, accents drawn as glyphs of their own, page numbers inside decorated footers
away from the page edge, emphasis in other fonts off the baseline, running headers carrying the chapter
title, rows of symbols, dot leaders, a dash that goes on a sentence, a cover labelled 1, no page labels.

`tex_like(path, **traps)` draws the same little rulebook with the chosen traps on and returns what the
importer must write: each paragraph, heading and bullet with the printed pages it is on. Words are placed
one by one (as TeX does) so that every gap is under control.
"""

import re
from dataclasses import dataclass
from pathlib import Path

from testbed.pdf_fixtures import Expected

W, H = 595.0, 842.0
LEFT, RIGHT, TOP = 70.0, 360.0, 110.0
BODY, LEAD = 10.0, 13.0
# Spacing accents as TeX's OT1 fonts draw them, over the base letter.
SPLIT = {"é": ("e", "´"), "è": ("e", "`"), "à": ("a", "`"), "ê": ("e", "ˆ"), "â": ("a", "ˆ"), "î": ("i", "ˆ"),
         "ô": ("o", "ˆ"), "û": ("u", "ˆ"), "ç": ("c", "¸"), "ë": ("e", "¨"), "ï": ("i", "¨"), "À": ("A", "`"),
         "É": ("E", "´"), "ù": ("u", "`")}
FONTS = {"": "Helvetica", "*": "Times-Italic", "**": "Helvetica-Bold", "`": "Courier-Bold"}

# The rulebook: chapters of pages; a page is blocks (kind, lines). Inline marks: *italic*, **bold**,
# `monospace`. A line ending with "-" before the page end is a word cut over the page break.
CHAPTERS = [
    ("Mise en place", [
        [("h1", ["1. Mise en place"]),
         ("p", ["Chaque joueur prend un plateau et le place devant lui, face",
                "visible. Le matériel restant forme la réserve commune."]),
         ("p", ["Le joueur le plus âgé reçoit le *pion premier joueur* et le",
                "garde pendant toute la manche. Il mélange les cartes et en",
                "distribue cinq à chacun, même à lui-même."]),
         ("p", ["Les cartes restantes forment la pioche, à côté de la dé-"])],
        [("p+", ["fausse, toujours face cachée."]),
         ("h2", ["1.1. Le matériel"]),
         ("li", ["• 48 cartes de quatre couleurs"]),
         ("li", ["• 6 dés spéciaux à huit faces"]),
         ("p", ["Le **jeton bonus** rapporte deux points à la fin de la",
                "partie, s'il est encore face cachée."])],
    ]),
    ("Tour de jeu", [
        [("h1", ["2. Tour de jeu"]),
         ("p", ["À ton tour, lance les dés, puis choisis une carte de la",
                "rivière. Le joueur actif, à la fin de son tour de jeu",
                "– s'il le souhaite – peut relancer un dé une seule fois."]),
         ("p", ["La commande `relance` s'écrit en entier : *Secure Shell*",
                "n'y est pour rien, c'est une blague des auteurs."])],
        [("sym", ["h h h ª h h h h"]),
         ("p", ["Quand la pioche est vide, mélange la défausse pour former",
                "une nouvelle pioche. Ça n'arrive qu'une fois par partie."])],
    ]),
    ("Fin de partie", [
        [("h1", ["3. Fin de partie"]),
         ("p", ["La partie s'arrête dès qu'un joueur possède sept cartes",
                "de la même couleur. Chaque carte vaut trois points."]),
         ("p", ["En cas d'égalité, le joueur qui possède le plus de jetons",
                "bonus l'emporte ; s'il y a encore égalité, ils se partagent",
                "la victoire."])],
        [("p", ["Une partie dure environ une demi-heure, règles comprises,",
                "et se joue de deux à cinq joueurs."])],
    ]),
]
TOC = [("1. Mise en place", 1), ("1.1. Le matériel", 2), ("2. Tour de jeu", 3), ("3. Fin de partie", 5)]


@dataclass
class Traps:
    spaces: bool = True  # False: no space glyph, each word placed on its own (TeX)
    word_gap: float = 0.28  # em between words when drawn without spaces (TeX squeezes to about 0.2)
    accents: bool = False  # accents drawn as their own glyph over the letter, some far in the content
    emphasis: bool = False  # italic, bold, monospace keywords in other fonts, a little off the baseline
    chapter_headers: bool = False  # running header "2 Chapitre 1. Mise en place" / "1.1. Le matériel 3"
    footer: str | None = "plain"  # "plain": a bare number at the bottom; "decorated": "© Éditeur 2021 · 4"
    footer_y: float = 28.0  # baseline of the footer from the bottom edge
    symbols: bool = False  # a row of music glyphs in a large size
    leaders: bool = False  # a table of contents with dot leaders on a numbered page
    cover_label_1: bool = False  # page labels "1" on the cover, then 1, 2, 3… on the rule pages
    labels: bool = False  # page labels: cover "Couverture", then 1, 2, 3… (a stripped copy has none)
    front_pages: int = 1  # unnumbered pages between the cover and page 1 (the position is then off)


def _parts(line: str, emphasis: bool) -> list[tuple[str, str]]:
    """(word, mark) pieces of a line; marks are dropped (plain font) without the emphasis trap."""
    out = []
    for piece in re.split(r"(\*\*[^*]+\*\*|\*[^*]+\*|`[^`]+`)", line):
        if not piece:
            continue
        mark = next((m for m in ("**", "*", "`") if piece.startswith(m) and piece.endswith(m)), "")
        text = piece[len(mark):len(piece) - len(mark)] if mark else piece
        out += [(word, mark if emphasis else "") for word in text.split()]
    return out


def plain(line: str) -> str:
    return re.sub(r"\*\*|\*|`", "", line)


class _Drawer:
    def __init__(self, canvas, traps: Traps):
        self.c, self.t, self.late = canvas, traps, []

    def words(self, x: float, y: float, parts: list[tuple[str, str]], size: float, font: str | None = None,
              justify: float | None = None) -> None:
        from reportlab.pdfbase.pdfmetrics import stringWidth

        fonts = [font or FONTS[mark] for _, mark in parts]
        widths = [stringWidth(word, f, size) for (word, _), f in zip(parts, fonts)]
        gap = self.t.word_gap * size
        if justify is not None and len(parts) > 1:
            gap = max(gap, (justify - x - sum(widths)) / (len(parts) - 1))
        if self.t.spaces and not self.t.accents and not self.t.emphasis:
            self.c.setFont(fonts[0], size)
            self.c.drawString(x, y, " ".join(w for w, _ in parts))
            return
        for (word, mark), f in zip(parts, fonts):
            # Emphasis off the baseline: monospace 0.6 pt lower, italic in a taller face at 11 pt.
            dy, fsize = {"`": (-0.6, size), "*": (0.0, size * 1.1)}.get(mark, (0.0, size)) if mark else (0.0, size)
            self.word(x, y + dy, word, f, fsize)
            x += stringWidth(word, f, fsize) + gap

    def word(self, x: float, y: float, word: str, font: str, size: float) -> None:
        from reportlab.pdfbase.pdfmetrics import stringWidth

        c = self.c
        if not self.t.accents:
            c.setFont(font, size)
            c.drawString(x, y, word)
            return
        for i, ch in enumerate(word):
            base, accent = SPLIT.get(ch, (ch, None))
            c.setFont(font, size)
            c.drawString(x, y, base)
            if accent:
                lift = 0.22 * size if base.isupper() else 0.0
                ax = x + (stringWidth(base, font, size) - stringWidth(accent, font, size)) / 2
                # Some accents come right after their letter, others at the end of the page's content.
                (self.late.append if i % 2 else lambda a: c.drawString(*a[:3]))((ax, y + lift, accent, font, size))
            x += stringWidth(base, font, size)

    def flush(self) -> None:
        for x, y, accent, font, size in self.late:
            self.c.setFont(font, size)
            self.c.drawString(x, y, accent)
        self.late.clear()


def tex_like(path: Path, **options) -> list[Expected]:
    """The rulebook with the chosen traps; returns the expected imported lines and their printed pages."""
    from reportlab.pdfgen.canvas import Canvas

    traps = Traps(**options)
    c = Canvas(str(path), pagesize=(W, H))
    draw = _Drawer(c, traps)
    c.setFont("Helvetica-Bold", 30)
    c.drawCentredString(W / 2, H / 2, "ZORGLUB")
    c.showPage()
    for _ in range(traps.front_pages):
        if traps.leaders:
            c.setFont("Helvetica", BODY)
            c.drawString(LEFT, H - TOP, "Sommaire")
        c.showPage()
    expected: list[Expected] = []
    number = 0
    for chapter, (title, pages) in enumerate(CHAPTERS, 1):
        for page in pages:
            number += 1
            _furniture(c, traps, number, chapter, title)
            y = H - TOP
            for kind, lines in page:
                size = {"h1": 16, "h2": 12, "sym": 16}.get(kind, BODY)
                font = "Helvetica-Bold" if kind in ("h1", "h2") else None
                if kind == "sym":
                    if traps.symbols:
                        y -= 24
                        c.setFont("Helvetica", size)
                        c.drawString(LEFT + 40, y, lines[0])
                        c.drawString(LEFT + 40, y - 22, "ª hhhhhh")
                        y -= 30
                    continue
                y -= {"h1": 26, "h2": 20}.get(kind, LEAD)
                for i, line in enumerate(lines):
                    if i:
                        y -= LEAD
                    last = i == len(lines) - 1
                    justify = None if last or kind != "p" else RIGHT
                    draw.words(LEFT, y, _parts(line, traps.emphasis), size, font, justify)
                y -= 5
                text = " ".join(plain(line) for line in lines)
                if kind == "p+":
                    prev = expected.pop()
                    joined = prev.text[:-1] + text if prev.text.endswith("-") else prev.text + " " + text
                    expected.append(Expected(joined, prev.pages + (number,)))
                else:
                    expected.append(Expected(text.removeprefix("• "), (number,), kind if kind != "sym" else "p"))
            draw.flush()
            c.showPage()
    if traps.leaders:
        number += 1
        _furniture(c, traps, number, 3, "Fin de partie")
        c.setFont("Helvetica", BODY)
        for i, (entry, page) in enumerate(TOC):
            c.drawString(LEFT, H - TOP - i * LEAD, f"{entry} " + "." * 40 + f" {page}")
        c.drawString(LEFT, H - TOP - 6 * LEAD, "...... (p. 934)")
        c.showPage()
    _labels(c, traps)
    c.save()
    return expected


def _furniture(c, traps: Traps, number: int, chapter: int, title: str) -> None:
    c.setFont("Helvetica", 8)
    if traps.chapter_headers:
        if number % 2 == 0:
            c.drawString(LEFT, H - 50, f"{number}     Chapitre {chapter}. {title}")
        else:
            c.drawRightString(W - LEFT, H - 50, f"{chapter}.1. {title}     {number}")
    if traps.footer == "plain":
        c.setFont("Helvetica", 9)
        c.drawCentredString(W / 2, traps.footer_y, str(number))
    elif traps.footer == "decorated":
        c.setLineWidth(0.5)
        c.line(LEFT, traps.footer_y + 12, W - LEFT, traps.footer_y + 12)
        c.setFont("Helvetica-Oblique", 8)
        c.drawString(LEFT, traps.footer_y, f"© Éditions Zorglub 2021 · {number} · Règles du jeu")


def _labels(c, traps: Traps) -> None:
    first = 1 + traps.front_pages
    if traps.cover_label_1:
        c.addPageLabel(0, style="ARABIC", start=1)
        if traps.front_pages:
            c.addPageLabel(1, style="ROMAN_LOWER", start=1)
        c.addPageLabel(first, style="ARABIC", start=1)
    elif traps.labels:
        c.addPageLabel(0, prefix="Couverture")
        if traps.front_pages:
            c.addPageLabel(1, style="ROMAN_LOWER", start=1)
        c.addPageLabel(first, style="ARABIC", start=1)


def inherited_box(path: Path, pages: int = 3) -> list[Expected]:
    """A4 pages whose MediaBox is inherited from the page tree (not repeated on each page, as DBLaTeX and
    others write it), a running header with the page number near the top edge, above 792 pt (the letter
    height a reader falls back to when it misses the inherited box)."""
    kids = " ".join(f"{4 + 2 * i} 0 R" for i in range(pages))
    objects = ["<< /Type /Catalog /Pages 2 0 R >>",
               f"<< /Type /Pages /MediaBox [0 0 595.28 841.89] /Count {pages} /Kids [{kids}] >>",
               "<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>"]
    expected = []
    for i in range(pages):
        text = f"Paragraphe de la page {i + 1}, une règle comme une autre."
        expected.append(Expected(text, (i + 1,)))
        body = text.encode("cp1252")
        stream = (b"BT /F1 9 Tf 56 800 Td (Guide du jeu) Tj 480 0 Td (%d / %d) Tj ET "
                  b"BT /F1 10 Tf 56 700 Td (" % (i + 1, pages) + body + b") Tj ET")
        objects.append(f"<< /Type /Page /Parent 2 0 R /Resources << /Font << /F1 3 0 R >> >> "
                       f"/Contents {5 + 2 * i} 0 R >>")
        objects.append(f"<< /Length {len(stream)} >>\nstream\n".encode() + stream + b"\nendstream")
    out = bytearray(b"%PDF-1.4\n")
    offsets = []
    for n, obj in enumerate(objects, 1):
        offsets.append(len(out))
        out += f"{n} 0 obj\n".encode() + (obj if isinstance(obj, bytes) else obj.encode("latin-1")) + b"\nendobj\n"
    xref = len(out)
    out += f"xref\n0 {len(objects) + 1}\n0000000000 65535 f \n".encode()
    out += b"".join(f"{o:010d} 00000 n \n".encode() for o in offsets)
    out += f"trailer\n<< /Size {len(objects) + 1} /Root 1 0 R >>\nstartxref\n{xref}\n%%EOF\n".encode()
    path.write_bytes(bytes(out))
    return expected
