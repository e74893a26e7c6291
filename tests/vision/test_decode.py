"""Safe decoding: EXIF orientation, limits against decompression bombs, clear errors."""

from __future__ import annotations

import io

import numpy as np
import pytest
from PIL import Image

from scorepad.vision.decode import HEIF, MAX_BYTES, PhotoError, decode


def jpeg(width: int, height: int, exif_orientation: int | None = None) -> bytes:
    img = Image.new("RGB", (width, height), (200, 30, 30))
    img.paste((30, 30, 200), (0, 0, width // 2, height // 4))  # a blue block top-left
    out = io.BytesIO()
    if exif_orientation:
        exif = Image.Exif()
        exif[0x0112] = exif_orientation
        img.save(out, "JPEG", exif=exif.tobytes())
    else:
        img.save(out, "JPEG")
    return out.getvalue()


def test_plain_jpeg_decodes_to_rgb():
    rgb = decode(jpeg(640, 480))
    assert rgb.shape == (480, 640, 3) and rgb.dtype == np.uint8


def test_exif_orientation_is_applied():
    # Orientation 6: the camera was turned; the upright picture is 480 wide and 640 tall.
    rgb = decode(jpeg(640, 480, exif_orientation=6))
    assert rgb.shape[:2] == (640, 480)
    # The blue block (top-left as stored) ends up top-right after the 90-degree turn.
    assert rgb[20, -20, 2] > 150 and rgb[20, 20, 0] > 150


def test_large_jpeg_is_decoded_reduced():
    rgb = decode(jpeg(4000, 3000), target_side=2000)
    assert max(rgb.shape[:2]) <= 2100


def test_not_an_image():
    with pytest.raises(PhotoError, match="not a JPEG, PNG or WebP"):
        decode(b"%PDF-1.4 this is a document, not a photo" * 10)


@pytest.mark.skipif(HEIF, reason="with the pillow-heif plug-in Pillow reads HEIC itself")
def test_a_heic_photo_without_the_plug_in_says_how_to_send_a_jpeg():
    heic = b"\x00\x00\x00\x18ftypheic\x00\x00\x00\x00mif1heic" + bytes(200)
    with pytest.raises(PhotoError, match=r"HEIC format.*send it as a JPEG"):
        decode(heic)


def test_truncated_jpeg():
    data = jpeg(800, 600)
    with pytest.raises(PhotoError, match="damaged or truncated"):
        decode(data[: len(data) // 2])


def test_jpeg_whose_header_claims_more_picture_than_its_data_holds():
    # libjpeg fills the missing rows with flat grey and raises nothing; the photo would
    # otherwise be read as one without a sheet.
    data = bytearray(jpeg(600, 400))
    sof = data.find(b"\xff\xc0")
    data[sof + 5 : sof + 9] = (3000).to_bytes(2, "big") + (4000).to_bytes(2, "big")
    with pytest.raises(PhotoError, match="damaged or truncated"):
        decode(bytes(data))


def test_a_grey_picture_is_not_taken_for_a_damaged_one():
    img = Image.new("RGB", (640, 480), (128, 128, 128))
    img.paste((90, 90, 90), (0, 0, 640, 400))  # a grey picture, whole, mid-grey at the bottom
    rng = np.random.default_rng(0)
    noisy = np.clip(np.asarray(img) + rng.normal(0, 2, (480, 640, 3)), 0, 255).astype(np.uint8)
    out = io.BytesIO()
    Image.fromarray(noisy).save(out, "JPEG", quality=90)
    assert decode(out.getvalue()).shape == (480, 640, 3)


def test_empty_file():
    with pytest.raises(PhotoError, match="empty"):
        decode(b"")


def test_too_many_pixels_is_refused_before_decoding():
    # A 1-bit 10000 x 9000 PNG is tiny on disk but 90 MP once decoded: a decompression bomb.
    out = io.BytesIO()
    Image.new("1", (10_000, 9_000)).save(out, "PNG")
    assert len(out.getvalue()) < 200_000
    with pytest.raises(PhotoError, match="too many pixels"):
        decode(out.getvalue())


def test_too_many_bytes():
    # Rounded up: a photo just over the limit is not said to be as large as the limit.
    with pytest.raises(PhotoError, match=r"too large \(41 MB; at most 40 MB\)"):
        decode(b"\xff\xd8" + bytes(MAX_BYTES))


def test_too_small():
    with pytest.raises(PhotoError, match="too small"):
        decode(jpeg(200, 150))
    # A strip is refused for its short side, which the message names.
    with pytest.raises(PhotoError, match=r"\(4000x100; each side needs at least 320 pixels\)"):
        decode(jpeg(4000, 100))


def test_sixteen_bit_grey_png_keeps_its_picture():
    # Pillow's convert("RGB") clips 16-bit values at 255: the picture came out all white.
    grey = np.zeros((400, 600), np.uint16)
    grey[:, 300:] = 40000
    out = io.BytesIO()
    Image.fromarray(grey).save(out, "PNG")
    rgb = decode(out.getvalue())
    assert rgb.shape == (400, 600, 3)
    assert rgb[10, 10].tolist() == [0, 0, 0] and 150 < rgb[10, 500, 0] < 160
