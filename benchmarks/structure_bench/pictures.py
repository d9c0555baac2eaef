"""The benchmark's pictures: a small drawing per figure (no text in it), as PNG and as EPS (for groff)."""

from pathlib import Path


def picture(folder: Path, n: int) -> tuple[Path, Path]:
    """(png, eps) of figure `n`: a few coloured shapes, 480 x 240 pixels."""
    from PIL import Image, ImageDraw

    png, eps = folder / f"figure{n}.png", folder / f"figure{n}.eps"
    if png.exists() and eps.exists():
        return png, eps
    image = Image.new("RGB", (480, 240), (236, 242, 248))
    draw = ImageDraw.Draw(image)
    colours = [(196, 120, 40), (40, 110, 170), (120, 150, 60), (170, 60, 90)]
    for k in range(4 + n):
        x = 30 + (k * 97 + n * 31) % 400
        y = 30 + (k * 53 + n * 17) % 160
        draw.ellipse((x, y, x + 50, y + 50), fill=colours[k % 4])
        draw.rectangle((x + 10, y + 60, x + 70, y + 70), fill=colours[(k + n) % 4])
    image.save(png)
    image.save(eps)
    return png, eps
