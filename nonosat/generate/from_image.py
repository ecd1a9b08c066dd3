"""From a picture file to a grid: decode (size-checked first), scale, threshold or quantise.

Steps (:func:`picture_grid`):

1. **Decode** with Pillow: PNG, JPEG, GIF (first frame), WebP and BMP.  The header is read
   first and the pixel count checked against :data:`MAX_PIXELS` *before* the pixels are decoded,
   so a small file announcing a huge image (a "decompression bomb") is refused at once.
   Transparency is composited over white.
2. **Scale** to ``width x height`` cells with a filter chosen for the kind of picture: *line art*
   (few distinct colours: drawings, icons, pixel art, scans of outlines) is scaled with
   ``BOX`` (each cell the average of the pixels it covers, so a thin line still darkens its
   cell) and *photographs* (many colours) with ``LANCZOS`` (antialiased, sharp).  ``filter``
   overrides the choice.
3. **Black-and-white**: the grey level is thresholded by Otsu's method
   (:func:`skimage.filters.threshold_otsu`: the threshold that maximises the between-class
   variance of the grey histogram); darker than the threshold is filled.  A fixed threshold
   (0-255) can be given instead.  **Colour** (``colours >= 2`` colours besides the background):
   Pillow's median-cut quantiser (:meth:`PIL.Image.Image.quantize`) chooses ``colours + 1``
   colours from the picture before scaling, and each cell of the scaled picture takes the nearest
   of them; the most frequent colour on the border is the background.
4. **Specks** (optional, ``despeckle=N``): connected regions of at most ``N`` cells (4-connected,
   per colour) are painted the colour most common around them
   (:func:`skimage.measure.label`): a lone pixel adds two clues and almost never helps the
   picture.

References: N. Otsu, "A threshold selection method from gray-level histograms", IEEE Trans.
SMC 9(1), 1979; P. Heckbert, "Color image quantization for frame buffer display", SIGGRAPH 1982
(median cut).
"""

from __future__ import annotations

import io
import os
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from nonosat.errors import FormatError
from nonosat.puzzle import MAX_COLOURS, Colour, Palette

#: Picture formats read (Pillow's names).
PICTURE_FORMATS = ("PNG", "JPEG", "GIF", "WEBP", "BMP")
#: Largest picture decoded, in pixels (checked from the header, before decoding).
MAX_PIXELS = 40_000_000
#: Largest picture file read, in bytes.
MAX_PICTURE_BYTES = 64 * 2**20
#: Distinct colours (in a 256-pixel-wide thumbnail) up to which a picture counts as line art.
LINE_ART_COLOURS = 64
#: Largest grid side made from a picture.
MAX_SIDE = 200

FILTERS = ("auto", "box", "lanczos", "nearest", "bilinear")


@dataclass
class PictureGrid:
    """A picture made into a grid (:func:`picture_grid`).

    Attributes
    ----------
    picture : ndarray
        ``(height, width)``: bool (filled) for black-and-white, int8 colour indices (0 =
        background) with a palette.
    palette : Palette or None
    kind : str
        ``"line art"`` or ``"photo"`` (what chose the filter).
    filter : str
        The scaling filter used.
    threshold : float or None
        The grey threshold (black-and-white).
    specks_removed : int
        Cells repainted by the speck removal.
    source_size : (int, int)
        The picture's width and height in pixels.
    """

    picture: np.ndarray
    palette: Palette | None
    kind: str
    filter: str
    threshold: float | None = None
    specks_removed: int = 0
    source_size: tuple[int, int] = (0, 0)
    info: dict[str, Any] = field(default_factory=dict)


def parse_size(text: str) -> tuple[int, int | None]:
    """``"30x20"`` -> ``(30, 20)``; ``"30"`` -> ``(30, None)`` (height from the aspect ratio).

    Raises
    ------
    ValueError
        Not ``W`` or ``WxH`` with sides from 1 to :data:`MAX_SIDE`.
    """
    parts = text.lower().replace("×", "x").split("x")
    if len(parts) not in (1, 2) or not all(p.strip().isdigit() for p in parts):
        raise ValueError(f"size {text!r}: use WxH, e.g. 30x20")
    sides = [int(p) for p in parts]
    if not all(1 <= s <= MAX_SIDE for s in sides):
        raise ValueError(f"size {text!r}: each side must be 1..{MAX_SIDE}")
    return sides[0], sides[1] if len(sides) == 2 else None


def open_picture(data: bytes, name: str = "<picture>") -> Any:
    """Pillow image of ``data`` (header read and the size checked, pixels not yet decoded).

    Raises
    ------
    FormatError
        Not a picture Pillow reads, not one of :data:`PICTURE_FORMATS`, or more than
        :data:`MAX_PIXELS` pixels.
    """
    from PIL import Image, UnidentifiedImageError

    if len(data) > MAX_PICTURE_BYTES:
        raise FormatError(name, None, f"picture file over {MAX_PICTURE_BYTES // 2**20} MiB")
    try:
        image = Image.open(io.BytesIO(data), formats=list(PICTURE_FORMATS))
    except UnidentifiedImageError:
        raise FormatError(name, None, "not a PNG, JPEG, GIF, WebP or BMP picture") from None
    except (OSError, ValueError, Image.DecompressionBombError) as exc:
        raise FormatError(name, None, f"cannot read the picture: {exc}") from None
    w, h = image.size
    if w < 1 or h < 1 or w * h > MAX_PIXELS:
        raise FormatError(name, None, f"picture is {w}x{h} pixels; at most {MAX_PIXELS} pixels")
    return image


def _decode(image: Any, name: str) -> Any:
    """RGB image with transparency composited over white."""
    from PIL import Image

    try:
        image.seek(0)
        image.load()
        rgba = image.convert("RGBA")
    except (OSError, ValueError, SyntaxError, Image.DecompressionBombError) as exc:
        raise FormatError(name, None, f"cannot decode the picture: {exc}") from None
    white = Image.new("RGBA", rgba.size, (255, 255, 255, 255))
    return Image.alpha_composite(white, rgba).convert("RGB")


def picture_kind(rgb: Any) -> str:
    """``"line art"`` when a thumbnail has at most :data:`LINE_ART_COLOURS` distinct colours,
    else ``"photo"``."""
    from PIL import Image

    w, h = rgb.size
    scale = min(1.0, 256 / max(w, h))
    thumb = rgb.resize((max(1, round(w * scale)), max(1, round(h * scale))),
                       Image.Resampling.NEAREST)  # no antialiasing: keep the colours as drawn
    colours = thumb.getcolors(maxcolors=LINE_ART_COLOURS)
    return "line art" if colours is not None else "photo"


def _resample(name: str) -> Any:
    from PIL import Image

    return {"box": Image.Resampling.BOX, "lanczos": Image.Resampling.LANCZOS,
            "nearest": Image.Resampling.NEAREST, "bilinear": Image.Resampling.BILINEAR}[name]


def scaled(rgb: Any, width: int, height: int | None, filter: str = "auto") -> tuple[Any, str, str]:
    """``(scaled RGB image, kind, filter used)``; ``height`` ``None`` keeps the aspect ratio."""
    if filter not in FILTERS:
        raise ValueError(f"unknown filter {filter!r}; use one of {', '.join(FILTERS)}")
    kind = picture_kind(rgb)
    if height is None:
        height = max(1, min(MAX_SIDE, round(width * rgb.size[1] / rgb.size[0])))
    used = filter if filter != "auto" else ("box" if kind == "line art" else "lanczos")
    return rgb.resize((width, height), _resample(used)), kind, used


def threshold_picture(rgb: Any, threshold: float | None = None, invert: bool = False
                      ) -> tuple[np.ndarray, float]:
    """Filled cells (bool ``(h, w)``) of a scaled picture: grey below the threshold (Otsu's when
    ``threshold`` is ``None``); a picture of one grey level is all empty (or all filled when
    darker than mid-grey)."""
    from skimage.filters import threshold_otsu

    grey = np.asarray(rgb.convert("L"), dtype=np.float64)
    if threshold is not None:
        filled = grey < threshold
    elif float(grey.max()) - float(grey.min()) < 1e-9:
        threshold = 128.0
        filled = grey < threshold
    else:
        threshold = float(threshold_otsu(grey.astype(np.uint8)))
        filled = grey <= threshold  # skimage's convention: above the threshold is foreground
    return (~filled if invert else filled), float(threshold)


def quantise_picture(rgb: Any, colours: int, source: Any = None) -> tuple[np.ndarray, Palette]:
    """Colour indices (int8 ``(h, w)``, 0 = background) and palette of a scaled picture ``rgb``
    reduced to at most ``colours`` colours besides the background.

    The palette is chosen by Pillow's median cut on ``source`` (the picture before scaling, at
    most 512 pixels a side, scaled without antialiasing: its flat areas, not the greys that
    scaling makes at their edges, decide the colours; ``rgb`` itself when omitted), then each
    cell takes the nearest palette colour (no dithering).  Colours are named by their hex code
    (the background ``white`` when it is); the background is the most frequent colour on the
    border."""
    from PIL import Image

    if not 1 <= colours <= MAX_COLOURS - 1:
        raise ValueError(f"colours must be 1..{MAX_COLOURS - 1}")
    base = rgb if source is None else source
    w, h = base.size
    scale = min(1.0, 512 / max(w, h))
    base = base.resize((max(1, round(w * scale)), max(1, round(h * scale))),
                       Image.Resampling.NEAREST)
    chosen = base.quantize(colors=colours + 1, method=Image.Quantize.MEDIANCUT,
                           dither=Image.Dither.NONE)
    quant = rgb.quantize(palette=chosen, dither=Image.Dither.NONE)
    idx = np.asarray(quant, dtype=np.int64)
    pal = quant.getpalette()[: 3 * 256]
    used = sorted(set(np.unique(idx).tolist()))
    border = np.concatenate([idx[0], idx[-1], idx[:, 0], idx[:, -1]])
    counts = np.bincount(border, minlength=256)
    background = int(np.argmax(counts))
    order = [background] + [u for u in used if u != background]
    remap = np.zeros(256, dtype=np.int8)
    for k, u in enumerate(order):
        remap[u] = k
    chars = "abcdefghijklmnopqrstuvwxyz0123456789"
    entries = []
    names = set()
    for k, u in enumerate(order):
        red, green, blue = (int(v) for v in pal[3 * u: 3 * u + 3])
        rgb_k = (red, green, blue)
        name = "white" if k == 0 and rgb_k == (255, 255, 255) else "#{:02x}{:02x}{:02x}".format(
            *rgb_k)
        while name in names:
            name += "'"
        names.add(name)
        entries.append(Colour(name, rgb_k, "." if k == 0 else chars[k - 1]))
    if len(entries) == 1:  # a picture of one colour: add an unused colour so the palette holds
        entries.append(Colour("#000000" if entries[0].rgb != (0, 0, 0) else "#ffffff",
                              (0, 0, 0) if entries[0].rgb != (0, 0, 0) else (255, 255, 255), "a"))
    return remap[idx], Palette(tuple(entries))


def remove_specks(picture: np.ndarray, size: int) -> tuple[np.ndarray, int]:
    """Paint every 4-connected region of one colour with at most ``size`` cells the colour most
    common on its outside border (bool pictures: filled/empty).  Returns the new picture and the
    number of cells repainted."""
    from skimage.measure import label

    if size <= 0:
        return picture, 0
    is_bool = picture.dtype == bool
    pic = picture.astype(np.int16)
    out = pic.copy()
    changed = 0
    for value in np.unique(pic):
        labels = label(pic == value, connectivity=1)
        sizes = np.bincount(labels.ravel())
        for region in np.flatnonzero(sizes <= size):
            if region == 0:
                continue
            mask = labels == region
            ring = np.zeros_like(mask)
            ring[1:] |= mask[:-1]
            ring[:-1] |= mask[1:]
            ring[:, 1:] |= mask[:, :-1]
            ring[:, :-1] |= mask[:, 1:]
            ring &= ~mask
            around = out[ring]
            if around.size == 0:
                continue
            new = int(np.bincount(around - around.min()).argmax() + around.min())
            if new != value:
                out[mask] = new
                changed += int(mask.sum())
    return (out.astype(bool) if is_bool else out.astype(np.int8)), changed


def picture_grid(
    data: bytes,
    width: int,
    height: int | None = None,
    *,
    colours: int = 1,
    threshold: float | None = None,
    invert: bool = False,
    filter: str = "auto",
    despeckle: int = 0,
    name: str = "<picture>",
) -> PictureGrid:
    """The grid of a picture file's bytes (module docstring).

    Parameters
    ----------
    data : bytes
        The file (PNG, JPEG, GIF, WebP, BMP).
    width, height : int
        Cells; ``height`` ``None`` keeps the picture's aspect ratio.
    colours : int
        1 = black-and-white (thresholded); 2 or more = colours besides the background.
    threshold : float, optional
        Grey level 0-255 (black-and-white); default Otsu's.
    invert : bool
        Fill the light cells instead of the dark ones (black-and-white).
    filter : str
        ``auto`` (box for line art, Lanczos for photos), ``box``, ``lanczos``, ``nearest``,
        ``bilinear``.
    despeckle : int
        Repaint regions of at most this many cells (0 = keep everything).
    name : str
        The file's name, for messages.

    Raises
    ------
    FormatError
        Not a readable picture, or too large.
    ValueError
        Bad size, filter or colour count.
    """
    image = open_picture(data, name)
    source = image.size
    rgb = _decode(image, name)
    small, kind, used = scaled(rgb, width, height, filter)
    if colours <= 1:
        picture, t = threshold_picture(small, threshold, invert)
        palette = None
    else:
        picture, palette = quantise_picture(small, colours, rgb)
        t = None
    picture, specks = remove_specks(picture, despeckle)
    return PictureGrid(picture, palette, kind, used, t, specks, source)


def read_picture_file(path: str | os.PathLike[str]) -> bytes:
    """The bytes of a picture file, bounded by :data:`MAX_PICTURE_BYTES`.

    Raises
    ------
    FormatError
        Missing, unreadable or too large.
    """
    from nonosat.safe_io import read_bounded

    return read_bounded(path, MAX_PICTURE_BYTES, "picture")
