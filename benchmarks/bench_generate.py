"""``nonosat generate`` and exact counts (issue 26): figures anyone can regenerate.

Sections (``--sections``, comma-separated; all by default):

``pictures``
    A fixed set of pictures: the scikit-image ``data`` images shipped in its wheel (no download:
    camera, astronaut, coffee, horse, chelsea, coins, moon, page, text, rocket, brick, grass,
    logo, retina, cell, ihc, ...) and drawings this script makes itself (rings, a house, a star,
    text, stripes).  Each is made into a grid at each ``--sizes`` (square), black-and-white
    and/or ``--colours`` (3 and 6 colours besides the background), for grade 1 and "any"
    (unique is enough), and made unique (:func:`nonosat.generate.make_unique`, ``--timeout``
    per puzzle).  Per configuration: puzzles made unique, cells changed (median, max, median
    share of the cells), time per puzzle (median, max), grades reached, and the baseline: how
    many pictures are unique after thresholding / quantising alone (no change).
``random``
    ``random_puzzle`` at each ``--random-sizes`` and grade: puzzles per second (in-process,
    after a warm-up), and how many reached the grade exactly.
``counts``
    The exact count (:func:`nonosat.engines.counting.count_solutions`, ``--count-timeout`` s
    each, default 10) on every ``--count-step``-th puzzle of taai2011 (``../shared/corpus``):
    counted within the limit, the distribution of the counts, time (median, max); for each
    count that gives up, a lower bound from the native engine's enumeration
    (``--enumerate-limit`` solutions within ``--enumerate-s`` s).

Targets (issue 26): 100% unique; 30x30 black-and-white "any": median changed <= 3% of the cells,
time <= 10 s; grade 1: median <= 8%; 3 colours 30x30: <= 5%; ``--random 25x25 --grade 1`` >= 5
puzzles/s; an exact count on every corpus puzzle with <= 10^6 solutions within 10 s.

Usage::

    python benchmarks/bench_generate.py [--sections pictures,random,counts] [--pictures 20]
        [--sizes 20,30,50] [--modes bw,3,6] [--grades any,1] [--timeout 60]
        [--random-sizes 15,25] [--random-grades 1,3,any] [--random-count 20] [--count-step 20]
        [--count-timeout 10] [--enumerate-limit 100000] [--enumerate-s 5] [--only draw-rings]
"""

from __future__ import annotations

import io
import statistics
import sys
import time
from pathlib import Path

import numpy as np
from preamble import REPO, argument_parser  # first: puts REPO on sys.path

#: scikit-image data images shipped in its wheel (no download needed).
SKIMAGE = ("camera", "astronaut", "coffee", "horse", "chelsea", "coins", "moon", "page", "text",
           "rocket", "brick", "grass", "logo", "retina", "cell", "immunohistochemistry",
           "clock", "hubble_deep_field")


def drawings() -> dict[str, bytes]:
    """Pictures drawn here with Pillow: line art and flat colours."""
    from PIL import Image, ImageDraw, ImageFont

    out = {}

    def save(name, image):
        buf = io.BytesIO()
        image.save(buf, "PNG")
        out[name] = buf.getvalue()

    im = Image.new("RGB", (300, 300), "white")
    d = ImageDraw.Draw(im)
    for k in range(5):
        d.ellipse((20 + 25 * k, 20 + 25 * k, 280 - 25 * k, 280 - 25 * k), outline="black",
                  width=8)
    save("draw-rings", im)
    im = Image.new("RGB", (300, 260), "white")
    d = ImageDraw.Draw(im)
    d.polygon([(40, 120), (150, 20), (260, 120)], fill=(180, 30, 30))
    d.rectangle((60, 120, 240, 250), fill=(230, 200, 120), outline="black", width=6)
    d.rectangle((130, 170, 170, 250), fill=(90, 60, 20))
    d.rectangle((80, 140, 115, 175), fill=(120, 180, 240), outline="black", width=4)
    save("draw-house", im)
    im = Image.new("RGB", (300, 300), "white")
    d = ImageDraw.Draw(im)
    pts = []
    for k in range(10):
        r = 140 if k % 2 == 0 else 60
        a = np.pi / 2 + k * np.pi / 5
        pts.append((150 + r * np.cos(a), 150 - r * np.sin(a)))
    d.polygon(pts, fill=(240, 200, 20), outline="black", width=6)
    save("draw-star", im)
    im = Image.new("RGB", (400, 200), "white")
    d = ImageDraw.Draw(im)
    try:
        font = ImageFont.load_default(size=120)
    except TypeError:  # Pillow < 10.1
        font = ImageFont.load_default()
    d.text((20, 30), "NONO", fill="black", font=font)
    save("draw-text", im)
    im = Image.new("RGB", (300, 300), "white")
    d = ImageDraw.Draw(im)
    for k in range(0, 300, 40):
        d.rectangle((k, 0, k + 18, 300), fill=(30, 90, 200))
    d.ellipse((60, 60, 240, 240), fill=(220, 40, 40))
    save("draw-stripes", im)
    im = Image.new("RGB", (300, 300), "white")
    d = ImageDraw.Draw(im)
    d.ellipse((30, 30, 270, 270), fill=(250, 220, 60), outline="black", width=8)
    d.ellipse((90, 100, 120, 140), fill="black")
    d.ellipse((180, 100, 210, 140), fill="black")
    d.arc((80, 120, 220, 230), 20, 160, fill="black", width=10)
    save("draw-smiley", im)
    return out


def pictures(n: int) -> dict[str, bytes]:
    """``n`` pictures: the drawings first, then scikit-image's (PNG bytes)."""
    from PIL import Image
    from skimage import data

    out = drawings()
    for name in SKIMAGE:
        if len(out) >= n:
            break
        img = np.asarray(getattr(data, name)())
        if img.dtype == bool:
            img = np.where(img, 0, 255).astype(np.uint8)
        elif img.dtype != np.uint8:
            img = (255 * (img - img.min()) / max(1e-9, float(img.max() - img.min()))).astype(
                np.uint8)
        buf = io.BytesIO()
        Image.fromarray(img).save(buf, "PNG")
        out[name] = buf.getvalue()
    return dict(list(out.items())[:n])


def pct(values, q):
    return float(np.percentile(values, q)) if values else float("nan")


def bench_pictures(args) -> None:
    from nonosat.generate.from_image import picture_grid
    from nonosat.generate.unique import make_unique

    pics = pictures(args.pictures)
    if args.only:
        keep = set(args.only.split(","))
        pics = {name: data for name, data in pics.items() if name in keep}
    print(f"## pictures ({len(pics)}: {', '.join(pics)})\n")
    print("| size | mode | grade | unique | baseline unique | changed median / max | "
          "share median / max | time median / max s | grades reached |")
    print("|---|---|---|---|---|---|---|---|---|")
    make_unique(np.eye(5, dtype=bool), timeout=10)  # warm-up: engines loaded
    for size in args.sizes:
        for mode in args.modes:
            colours = 1 if mode == "bw" else int(mode)
            for grade in args.grades:
                g = None if grade == "any" else int(grade)
                if colours > 1 and g == 2:
                    continue
                changed, shares, times, grades = [], [], [], {}
                unique = base = 0
                for name, data in pics.items():
                    grid = picture_grid(data, size, size, colours=colours)
                    start = time.perf_counter()
                    made = make_unique(grid.picture, grid.palette, grade=g,
                                       timeout=args.timeout)
                    elapsed = time.perf_counter() - start
                    unique += made.reached
                    base += made.changes == 0 and made.reached
                    changed.append(made.changes)
                    shares.append(100.0 * made.changes / (size * size))
                    times.append(elapsed)
                    grades[made.grade] = grades.get(made.grade, 0) + 1
                    if args.verbose:
                        print(f"  {name} {size} {mode} {grade}: {made.changes} "
                              f"{made.status.value} grade {made.grade} {elapsed:.2f}s "
                              f"{made.reason}", file=sys.stderr, flush=True)
                spread = " ".join(f"{k}:{v}" for k, v in sorted(
                    grades.items(), key=lambda x: (x[0] is None, x[0] or 0)))
                print(f"| {size}x{size} | {mode} | {grade} | {unique}/{len(pics)} | "
                      f"{base}/{len(pics)} | {statistics.median(changed):g} / {max(changed)} | "
                      f"{pct(shares, 50):.2f}% / {max(shares):.2f}% | "
                      f"{statistics.median(times):.2f} / {max(times):.2f} | {spread} |",
                      flush=True)
    print()


def bench_random(args) -> None:
    from nonosat.generate.random import random_puzzle

    print("## random\n")
    print("| size | colours | grade | puzzles | reached | per second | median s | max s |")
    print("|---|---|---|---|---|---|---|---|")
    random_puzzle(8, 8, seed=999)  # warm-up
    for size in args.random_sizes:
        for grade in args.random_grades:
            g = None if grade == "any" else int(grade)
            times, reached = [], 0
            start = time.perf_counter()
            for seed in range(args.random_count):
                t = time.perf_counter()
                made = random_puzzle(size, size, grade=g, seed=seed, timeout=args.timeout)
                times.append(time.perf_counter() - t)
                reached += made.reached
            total = time.perf_counter() - start
            print(f"| {size}x{size} | 1 | {grade} | {args.random_count} | {reached} | "
                  f"{args.random_count / total:.2f} | {statistics.median(times):.3f} | "
                  f"{max(times):.3f} |", flush=True)
    print()


def bench_counts(args) -> None:
    from nonosat.engines.counting import count_solutions
    from nonosat.formats import read_puzzles

    path = REPO.parent / "shared" / "corpus" / "NonogramRecord" / "question" / "taai2011.txt"
    if not path.exists():
        path = Path("/work/shared/corpus/NonogramRecord/question/taai2011.txt")
    if not path.exists():
        print("## counts\n\nskipped: taai2011.txt not found\n")
        return
    from nonosat.engines import solve

    puzzles = read_puzzles(path)[:: args.count_step]
    limit = args.count_timeout
    print(f"## counts (taai2011, every {args.count_step}th: {len(puzzles)} puzzles, "
          f"{limit:g} s each)\n")
    print("| puzzle | count | s | lower bound (native enumeration) |")
    print("|---|---|---|---|")
    counts, times, gave_up = [], [], 0
    for k, p in enumerate(puzzles):
        got = count_solutions(p, timeout=limit)
        times.append(got.time_s)
        bound = ""
        if got.exact:
            counts.append(got.count)
        else:
            gave_up += 1
            # what is known when the counter gives up: the solutions an enumeration finds
            found = solve(p, "native", limit=args.enumerate_limit, timeout=args.enumerate_s)
            more = "" if getattr(found, "exhausted", False) else ">= "
            bound = f"{more}{len(found.solutions)} ({found.time_s:.1f} s)"
        print(f"| #{k * args.count_step} | {got.count if got.exact else 'gave up'} | "
              f"{got.time_s:.1f} | {bound} |", flush=True)
    print(f"\ncounted exactly: {len(counts)}/{len(puzzles)} (gave up: {gave_up}); "
          f"time median {statistics.median(times):.2f} s, max {max(times):.2f} s")
    if counts:
        print(f"counts: min {min(counts)}, median {statistics.median(counts):g}, "
              f"max {max(counts)}; unique {sum(c == 1 for c in counts)}, "
              f"<= 10^6: {sum(c <= 10**6 for c in counts)}\n")


def main() -> None:
    ap = argument_parser(__doc__)
    ap.add_argument("--sections", default="pictures,random,counts")
    ap.add_argument("--pictures", type=int, default=20)
    ap.add_argument("--sizes", default="20,30,50")
    ap.add_argument("--modes", default="bw,3,6")
    ap.add_argument("--grades", default="any,1")
    ap.add_argument("--timeout", type=float, default=60.0)
    ap.add_argument("--random-sizes", default="15,25")
    ap.add_argument("--random-grades", default="1,3,any")
    ap.add_argument("--random-count", type=int, default=20)
    ap.add_argument("--count-step", type=int, default=20)
    ap.add_argument("--count-timeout", type=float, default=10.0,
                    help="seconds for each exact count")
    ap.add_argument("--enumerate-limit", type=int, default=100_000,
                    help="most solutions enumerated for a lower bound when a count gives up")
    ap.add_argument("--enumerate-s", type=float, default=5.0,
                    help="seconds of that enumeration")
    ap.add_argument("--only", default="",
                    help="comma-separated picture names (e.g. draw-rings): only these")
    ap.add_argument("--verbose", action="store_true")
    args = ap.parse_args()
    args.sizes = [int(s) for s in args.sizes.split(",")]
    args.modes = args.modes.split(",")
    args.grades = args.grades.split(",")
    args.random_sizes = [int(s) for s in args.random_sizes.split(",")]
    args.random_grades = args.random_grades.split(",")
    sections = args.sections.split(",")
    if "pictures" in sections:
        bench_pictures(args)
    if "random" in sections:
        bench_random(args)
    if "counts" in sections:
        bench_counts(args)


if __name__ == "__main__":
    main()
