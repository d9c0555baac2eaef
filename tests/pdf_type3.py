"""A one-page PDF in a Type 3 font written by hand: boxes for glyphs, their text mapped by a ToUnicode CMap,
and no ascent, descent or box declared (FontBBox [0 0 500 0]). pdfium then boxes each glyph's ink, as it
does for the fonts LibreOffice writes with /Ascent 0 /Descent 0 (tests/pdf_structure.py)."""

from pathlib import Path

W, H = 595.0, 842.0
LEFT = 70.0


def type3_page(path: Path, lines: list[str], footer: str, size: float = 10.0) -> None:
    """One page of `lines` (an empty one: a paragraph break) in a Type 3 font of filled boxes, 0.5 em
    wide, their text mapped by a ToUnicode CMap; FontBBox [0 0 500 0], so no ascent and no descent."""
    chars = sorted(set("".join(lines) + footer) - {" "})
    codes = {c: 33 + i for i, c in enumerate(chars)}
    deep = set("gjpqyç")
    objects: list[bytes] = []

    def add(body: bytes) -> int:
        objects.append(body)
        return len(objects)

    def stream(data: bytes) -> bytes:
        return b"<< /Length %d >>\nstream\n" % len(data) + data + b"\nendstream"

    procs = {}
    for c in chars:
        low = -350 if c in deep else 0
        procs[c] = add(stream(f"500 0 50 {low} 450 700 d1 50 {low} 400 {700 - low} re f".encode()))
    space = add(stream(b"500 0 d0"))
    cmap = "\n".join(f"<{codes[c]:02X}> <{ord(c):04X}>" for c in chars)
    tounicode = add(stream((f"/CIDInit /ProcSet findresource begin 12 dict begin begincmap /CMapName /T3 def "
                            f"1 begincodespacerange <00> <FF> endcodespacerange {len(chars) + 1} beginbfchar\n"
                            f"<20> <0020>\n{cmap}\nendbfchar endcmap CMapName currentdict /CMap defineresource pop "
                            "end end").encode()))
    last = 32 + len(chars)
    font = add((f"<< /Type /Font /Subtype /Type3 /FontBBox [0 0 500 0] /FontMatrix [0.001 0 0 0.001 0 0] "
                f"/CharProcs << /space {space} 0 R "
                + " ".join(f"/g{codes[c]} {procs[c]} 0 R" for c in chars)
                + " >> /Encoding << /Type /Encoding /Differences [32 /space "
                + " ".join(f"{codes[c]} /g{codes[c]}" for c in chars)
                + f"] >> /FirstChar 32 /LastChar {last} /Widths [{' '.join(['500'] * (last - 31))}] "
                f"/ToUnicode {tounicode} 0 R >>").encode())

    def show(text: str) -> str:
        return "".join(f"\\{codes[c]:03o}" if c != " " else " " for c in text)

    ops, y = [], 760.0
    for line in lines:
        if line:
            ops.append(f"BT /F1 {size} Tf {LEFT} {y} Td ({show(line)}) Tj ET")
        y -= size * 1.4
    ops.append(f"BT /F1 9 Tf {W / 2} 30 Td ({show(footer)}) Tj ET")
    content = add(stream("\n".join(ops).encode()))
    pages = len(objects) + 3
    page = add(f"<< /Type /Page /Parent {pages} 0 R /MediaBox [0 0 {W:.0f} {H:.0f}] "
               f"/Resources << /Font << /F1 {font} 0 R >> >> /Contents {content} 0 R >>".encode())
    catalog = add(f"<< /Type /Catalog /Pages {pages} 0 R >>".encode())
    add(f"<< /Type /Pages /Count 1 /Kids [{page} 0 R] >>".encode())
    out = bytearray(b"%PDF-1.4\n")
    offsets = []
    for n, body in enumerate(objects, 1):
        offsets.append(len(out))
        out += f"{n} 0 obj\n".encode() + body + b"\nendobj\n"
    xref = len(out)
    out += f"xref\n0 {len(objects) + 1}\n0000000000 65535 f \n".encode()
    out += b"".join(f"{o:010d} 00000 n \n".encode() for o in offsets)
    out += f"trailer\n<< /Size {len(objects) + 1} /Root {catalog} 0 R >>\nstartxref\n{xref}\n%%EOF\n".encode()
    Path(path).write_bytes(bytes(out))
