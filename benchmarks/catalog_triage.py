"""Triage scan and safe extraction throughput on generated game-like archives.

Paper scale: about 5,700 archives pass the metadata filters; a typical HTML5 or PyWeek game is
tens of MB. Prints MB/s (uncompressed) and archives/s for zip and tar.gz, scan and extract.

    .venv/bin/python benchmarks/catalog_triage.py [--files 2000] [--mb 200]
"""

from __future__ import annotations

import argparse
import io
import os
import random
import shutil
import tarfile
import tempfile
import time
import zipfile
from pathlib import Path

from playsuite.archives.extract import safe_extract
from playsuite.archives.triage import scan_archive


def payloads(files: int, total_mb: int, seed: int = 0) -> list[tuple[str, bytes]]:
    """Half text-like (compressible), half media-like (random) files, as in real game folders."""
    rng = random.Random(seed)
    size = total_mb * (1 << 20) // files
    words = [b"sprite", b"level", b"player", b"score", b"enemy", b"jump", b"tile", b"{", b"}"]
    out = []
    for i in range(files):
        if i % 2:
            data = os.urandom(size)
            name = f"game/assets/{i:05d}.png"
        else:
            data = b" ".join(rng.choice(words) for _ in range(size // 5))[:size]
            name = f"game/src/{i:05d}.js"
        out.append((name, data))
    out.append(("game/index.html", b"<canvas></canvas><script src=src/00000.js></script>"))
    return out


def build(kind: str, path: Path, items: list[tuple[str, bytes]]) -> Path:
    if kind == "zip":
        with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED, compresslevel=6) as zf:
            for name, data in items:
                zf.writestr(name, data)
    else:
        with tarfile.open(path, "w:gz", compresslevel=6) as tf:
            for name, data in items:
                info = tarfile.TarInfo(name)
                info.size = len(data)
                tf.addfile(info, io.BytesIO(data))
    return path


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--files", type=int, default=2000)
    parser.add_argument("--mb", type=int, default=200)
    args = parser.parse_args()
    items = payloads(args.files, args.mb)
    total_mb = sum(len(d) for _, d in items) / (1 << 20)
    tmp = Path(tempfile.mkdtemp(prefix="bench-triage-"))
    try:
        print(f"{len(items)} files, {total_mb:.0f} MB uncompressed")
        for kind, suffix in (("zip", ".zip"), ("tar.gz", ".tar.gz")):
            archive = build(kind, tmp / f"game{suffix}", items)
            packed = archive.stat().st_size / (1 << 20)
            t0 = time.perf_counter()
            report = scan_archive(archive, platform="web")
            scan = time.perf_counter() - t0
            assert report.policy == "clean", report.to_dict()
            target = tmp / f"out-{kind}"
            t0 = time.perf_counter()
            safe_extract(archive, target)
            extract = time.perf_counter() - t0
            print(
                f"{kind:7s} {packed:6.0f} MB packed | scan {scan:5.2f} s "
                f"({total_mb / scan:6.0f} MB/s) | extract {extract:5.2f} s "
                f"({total_mb / extract:6.0f} MB/s)"
            )
            shutil.rmtree(target)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
