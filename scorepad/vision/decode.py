"""Decoding a phone photo safely: Pillow, EXIF orientation, size limits, HEIC if a plug-in is
installed. Everything that is not a usable image raises :class:`PhotoError` with one readable
line (``shared/formats.md``, "Recognising a photo": exit 2 for a file that is not an image,
is truncated or is too large)."""

from __future__ import annotations

import io
import warnings

import numpy as np
from PIL import Image, ImageOps, UnidentifiedImageError

#: Largest upload we read at all (bytes): a 48 MP phone JPEG is well under this.
MAX_BYTES = 40 * 1024 * 1024
#: Largest image we decode (pixels): stops decompression bombs before any pixel is decoded.
MAX_PIXELS = 64_000_000
#: Smallest image worth looking at.
MIN_SIDE = 320
#: Formats we accept; HEIF/HEIC only appears when a plug-in registered it.
FORMATS = ("JPEG", "PNG", "WEBP", "MPO", "HEIF", "AVIF")


class PhotoError(ValueError):
    """A photo we cannot read or in which we find no sheet; the message is one line."""


def _register_heif() -> bool:
    """Register a HEIC plug-in (``pillow-heif``) when it is installed; never required."""
    try:
        from pillow_heif import register_heif_opener  # type: ignore[import-not-found]
    except ImportError:
        return False
    register_heif_opener()
    return True


HEIF = _register_heif()

#: The brands of an ISO media file (its ``ftyp`` box) that mark a HEIC / HEIF still photo.
HEIC_BRANDS = (b"heic", b"heix", b"heim", b"heis", b"hevc", b"hevx", b"mif1", b"msf1")


def _is_heic(data: bytes) -> bool:
    """Whether ``data`` starts as an iPhone's HEIC photo does (``....ftypheic``)."""
    return data[4:8] == b"ftyp" and data[8:12] in HEIC_BRANDS


def decode(data: bytes, target_side: int = 2000) -> np.ndarray:
    """The photo as an RGB uint8 array, upright per its EXIF orientation, with its long side
    reduced to about ``target_side`` (JPEGs are decoded at reduced scale directly, which is
    what keeps a 12 MP photo fast and small in memory)."""
    if len(data) > MAX_BYTES:
        megabytes = -(-len(data) // 2**20)  # rounded up: over the limit, never "as large"
        raise PhotoError(
            f"the photo is too large ({megabytes} MB; at most {MAX_BYTES // 2**20} MB)"
        )
    if len(data) < 16:
        raise PhotoError("the file is empty or is not an image")
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("error", Image.DecompressionBombWarning)
            image = Image.open(io.BytesIO(data), formats=_formats())
            width, height = image.size
            if width * height > MAX_PIXELS:
                raise PhotoError(
                    f"the photo has too many pixels ({width}x{height}; "
                    f"at most {MAX_PIXELS // 10**6} MP)"
                )
            if min(width, height) < MIN_SIDE:
                raise PhotoError(
                    f"the photo is too small ({width}x{height}; each side needs at least "
                    f"{MIN_SIDE} pixels); take it closer"
                )
            scale = max(width, height) / target_side
            if image.format == "JPEG" and scale >= 2:
                # DCT scaling: 1/2, 1/4 or 1/8 of the size, decoded directly (draft keeps
                # the image at least this size: asking for a pixel more would make a
                # 4000 x 3000 photo decode at full size).
                image.draft("RGB", (round(width / scale), round(height / scale)))
            image.load()
            if image.format == "JPEG" and _grey_tail(image):
                raise PhotoError("the image is damaged or truncated (its lower part is missing)")
            # In place, and no conversion of an RGB photo: each would copy all its pixels.
            ImageOps.exif_transpose(image, in_place=True)
            if image.mode != "RGB":
                image = _eight_bit(image).convert("RGB")
    except PhotoError:
        raise
    except UnidentifiedImageError:
        if _is_heic(data):  # only without the plug-in: with it, Pillow reads HEIC
            raise PhotoError(
                "the photo is in the HEIC format, which this server does not read: send it as "
                "a JPEG (on an iPhone: Settings, Camera, Formats, Most Compatible)"
            ) from None
        raise PhotoError("the file is not a JPEG, PNG or WebP photo") from None
    except (Image.DecompressionBombError, Image.DecompressionBombWarning):
        raise PhotoError(
            f"the photo has too many pixels (at most {MAX_PIXELS // 10**6} MP)"
        ) from None
    except (OSError, SyntaxError, ValueError) as err:
        raise PhotoError(f"the image is damaged or truncated ({_first_line(err)})") from None
    if max(image.size) > target_side * 1.05:
        scale = target_side / max(image.size)
        size = (max(1, round(image.size[0] * scale)), max(1, round(image.size[1] * scale)))
        image = image.resize(size, Image.Resampling.BILINEAR, reducing_gap=2.0)
    return np.asarray(image, dtype=np.uint8)


def _grey_tail(image: Image.Image) -> bool:
    """Whether the last rows decoded are the flat mid-grey libjpeg fills in for missing
    data: a JPEG cut short, or one whose header claims a larger picture than its data holds,
    decodes without an error otherwise (and then read as a photo with no sheet in it). A
    real photo's last rows are never one exact colour: sensor noise and the JPEG blocks."""
    rows = max(8, image.size[1] // 16)
    tail = np.asarray(image.crop((0, image.size[1] - rows, image.size[0], image.size[1])))
    return bool(tail.size) and int(tail.min()) >= 127 and int(tail.max()) <= 129


def _eight_bit(image: Image.Image) -> Image.Image:
    """A 16-bit grey PNG (Pillow modes ``I;16`` and ``I``) scaled to 8-bit grey: Pillow's
    ``convert("RGB")`` clips such values at 255, which made a 16-bit scan all white."""
    if image.mode != "I" and not image.mode.startswith("I;16"):
        return image
    values = np.asarray(image, dtype=np.float32) / 257.0  # 0..65535 to 0..255
    return Image.fromarray(np.clip(values + 0.5, 0, 255).astype(np.uint8), "L")


def _formats() -> list[str]:
    """The accepted formats that this Pillow build (and its plug-ins) can open."""
    Image.init()
    return [f for f in FORMATS if f in Image.OPEN]


def _first_line(err: BaseException) -> str:
    text = str(err).strip().splitlines()
    return text[0] if text else type(err).__name__


def outline_fractions(corners: np.ndarray, photo: np.ndarray) -> list[list[float]]:
    """A found sheet's or board's corners as fractions of the upright photo's width and
    height (the ``outline`` of a recognition, an extension of formats.md's shape): the
    same at any decoding scale, so the web app crops its evidence copy to the board."""
    height, width = photo.shape[:2]
    return [[round(float(x) / width, 4), round(float(y) / height, 4)] for x, y in corners]
