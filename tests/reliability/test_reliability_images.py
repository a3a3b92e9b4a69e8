"""Reliability: every image a camera or a tool writes (issue "A project that
nothing can break", items 8 and 9): EXIF orientation once for JPEG, PNG,
WebP and TIFF, colour modes, truncated files, image bombs."""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys

import numpy as np
import pytest
from PIL import Image

from reviewer.storage.files.images import read_photo
from reviewer.storage.files.previews import preview
from reviewer.storage.importers import import_source
from reviewer.storage.repo import ground_truth as repo_ground_truth
from reviewer.storage.repo import items as repo_items
from tests.helpers.oriented_images import CARD, FORMATS, H, W, is_red, save_oriented, upright
from tests.helpers.paths import ROOT


def test_every_orientation_of_every_format_is_upright_with_its_box_on_the_card(project, tmp_path):
    folder = tmp_path / "photos"
    (folder / "test-images").mkdir(parents=True)
    gt = {}
    for ext in FORMATS:
        for o in range(1, 9):
            name = f"{ext}-o{o}"
            save_oriented(folder / "test-images" / f"{name}.{ext}", o)
            x0, y0, x1, y1 = CARD
            gt[name] = {
                "piles": [
                    {
                        "label": "p",
                        "cards": [{"text": "card", "bbox": {"x_min": x0, "y_min": y0, "x_max": x1, "y_max": y1}}],
                    }
                ]
            }
    (folder / "test-images" / "ground-truth.json").write_text(json.dumps(gt))
    report = import_source(project, folder)
    assert report.added["items"] == 32 and report.added["previews"] == 32, report.summary()
    good = []
    for name in gt:
        item = repo_items.item_by_name(project, name)
        assert (item.width, item.height) == (W, H), name
        with Image.open(io.BytesIO(preview(project, item.sha256))) as im:
            im = im.convert("RGB")
            s = im.width / W
            assert abs(im.height - H * s) <= 1, name
            box = repo_ground_truth.ground_truth(project, item.id).cards[0].bbox
            inner = [
                (box.x_min + 15, box.y_min + 15),
                (box.x_max - 15, box.y_min + 15),
                (box.x_min + 15, box.y_max - 15),
                (box.x_max - 15, box.y_max - 15),
                ((box.x_min + box.x_max) / 2, (box.y_min + box.y_max) / 2),
            ]
            outside = [(box.x_max + 30, box.y_min + 15), (box.x_min + 15, box.y_max + 30)]
            on_card = all(is_red(im.getpixel((int(x * s), int(y * s)))) for x, y in inner)
            off_card = not any(is_red(im.getpixel((int(x * s), int(y * s)))) for x, y in outside)
            if on_card and off_card:
                good.append(name)
    assert len(good) == 32, sorted(set(gt) - set(good))


def _preview_of(path):
    photo = read_photo(path)
    assert photo.preview, photo
    return Image.open(io.BytesIO(photo.preview[0])).convert("RGB")


def test_colour_modes_look_as_expected(tmp_path):
    grey16 = tmp_path / "g16.png"
    ramp = np.tile(np.linspace(0, 65535, W).astype(np.uint16), (H, 1))
    Image.fromarray(ramp).save(grey16)
    im = _preview_of(grey16)
    mean = np.asarray(im).mean()
    assert 100 < mean < 155, mean  # a ramp, not nearly all white
    assert im.getpixel((5, 5))[0] < 20 and im.getpixel((im.width - 5, 5))[0] > 235

    pal = tmp_path / "pal.png"
    p = Image.new("P", (W, H), 0)
    p.putpalette([0, 0, 0, 220, 20, 20] + [0] * 762)
    p.paste(1, CARD)
    p.save(pal, transparency=0)  # index 0 (black) is transparent
    im = _preview_of(pal)
    assert im.getpixel((10, 10)) == (255, 255, 255)  # transparent shows white, not black
    s = im.width / W
    assert is_red(im.getpixel((int(500 * s), int(350 * s))))

    cmyk = tmp_path / "cmyk.jpg"
    upright().convert("CMYK").save(cmyk, quality=90)
    im = _preview_of(cmyk)
    s = im.width / W
    assert is_red(im.getpixel((int(500 * s), int(350 * s))))
    assert min(im.getpixel((10, 10))) > 230


def test_a_truncated_jpeg_gets_a_note(project, tmp_path):
    folder = tmp_path / "t"
    folder.mkdir()
    whole = io.BytesIO()
    Image.effect_noise((800, 600), 60).convert("RGB").save(whole, "JPEG", quality=90)
    (folder / "cut.jpg").write_bytes(whole.getvalue()[: len(whole.getvalue()) // 2])
    report = import_source(project, folder)
    notes = [n for n in report.notes if n.startswith("cut.jpg: truncated")]
    assert len(notes) == 1 and "\n" not in notes[0], report.notes
    item = repo_items.item_by_name(project, "cut")
    assert item.image_note.startswith("truncated") and (item.width, item.height) == (800, 600)


def _import_in_subprocess(tmp_path, folder):
    """Import ``folder`` with the CLI in a child; (exit code, stdout, stderr,
    peak memory of the child in MB)."""
    db = tmp_path / "p.db"
    env = {**os.environ, "PYTHONPATH": str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", "")}
    code = (
        "import resource, subprocess, sys\n"
        "r = subprocess.run([sys.executable, '-m', 'reviewer', 'import', sys.argv[1], sys.argv[2]],"
        " capture_output=True, text=True)\n"
        "print(r.returncode); print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)\n"
        "sys.stderr.write(r.stdout + '\\n=====\\n' + r.stderr)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code, str(db), str(folder)], env=env, capture_output=True, text=True, timeout=300
    )
    rc, kb = done.stdout.split()
    out, err = done.stderr.split("\n=====\n")
    return int(rc), out, err, int(kb) / 1024


@pytest.mark.parametrize("side,pixels_over", [(13300, True), (10000, False)])
def test_image_bombs_import_with_bounded_memory_and_one_line(tmp_path, side, pixels_over):
    folder = tmp_path / "bomb"
    folder.mkdir()
    big = Image.new("L", (side, side), 255)
    big.paste(0, (0, 0, side // 4, side // 4))
    big.save(folder / "big.png", compress_level=1)
    del big
    rc, out, err, peak_mb = _import_in_subprocess(tmp_path, folder)
    assert rc == 0, err
    assert peak_mb < 500, peak_mb
    assert "DecompressionBomb" not in err and "Warning" not in err, err
    notes = [line for line in out.splitlines() if line.startswith("note: big.png")]
    if pixels_over:
        assert len(notes) == 1 and f"too large to decode ({side} x {side}" in notes[0], out
    else:
        assert not notes, out  # at the limit: decoded, a preview made, no note
        assert "1 previews" in out
