"""Crafted archives of every kind (zip and tar.gz): risk at or above the expected level, nothing
written outside the extraction target, benign archives extracted exactly."""

from __future__ import annotations

import os
import shutil
import stat
import tempfile
import zipfile
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from playsuite.archives.extract import ArchiveError, Limits, UnsafeArchiveError, safe_extract
from playsuite.archives.triage import policy_for, scan_archive
from tests.catalog.crafted import (
    ELF_EXEC,
    elf_lib,
    file,
    macho_exe,
    make,
    make_encrypted_zip,
    make_tar,
    make_zip,
    pe_exe,
)

FORMATS = ["zip", "tar"]
SMALL = Limits(max_entry_bytes=1 << 20, max_total_bytes=4 << 20, ratio_min_bytes=1 << 20)

WEB = [
    {"name": "game/", "kind": "dir"},
    file("game/index.html", "<canvas id=c></canvas><script src=main.js></script>"),
    file("game/main.js", "let x = 0; addEventListener('keydown', () => x++);"),
    file("game/art/hero.png", b"\x89PNG\r\n\x1a\n" + bytes(range(256)) * 4),
]
NATIVE = [
    file("mygame/start.sh", '#!/bin/sh\ncd "$(dirname "$0")"\nexec ./bin/mygame "$@"\n', 0o755),
    file("mygame/bin/mygame", ELF_EXEC, 0o755),
    file("mygame/lib/libhelper.so.1", elf_lib()),
    file("mygame/data/level1.txt", "#####\n#@..#\n#####\n"),
]
PYTHON = [
    file("run_game.py", "import pygame\nfrom game import main\nmain.main()\n"),
    file("game/main.py", "def main():\n    pass\n"),
    file("game/__init__.py", ""),
    file("data/font.ttf", bytes(300)),
]

# (case, platform, entries, expected minimum risk, extraction refused)
CASES = [
    ("traversal", "web", [*WEB, file("../evil.txt", "pwned")], 4, True),
    ("deep_traversal", "web", [*WEB, file("game/../../../evil.txt", "pwned")], 4, True),
    ("backslash_traversal", "web", [*WEB, file("..\\evil.txt", "pwned")], 4, True),
    ("absolute", "web", [*WEB, file("/tmp/playsuite-evil.txt", "pwned")], 4, True),
    (
        "link_escape",
        "native",
        [*NATIVE, {"name": "mygame/cfg", "kind": "symlink", "link": "../../../etc/passwd"}],
        4,
        True,
    ),
    (
        "link_abs",
        "native",
        [*NATIVE, {"name": "mygame/cfg", "kind": "symlink", "link": "/etc/passwd"}],
        4,
        True,
    ),
    (
        "link_chain_escape",
        "native",
        [
            *NATIVE,
            {"name": "d", "kind": "symlink", "link": "."},
            {"name": "e", "kind": "symlink", "link": "d/.."},
        ],
        4,
        True,
    ),
    (
        "link_then_write",
        "native",
        [*NATIVE, {"name": "out", "kind": "symlink", "link": ".."}, file("out/evil.txt", "pwned")],
        4,
        True,
    ),
    ("setuid", "native", [*NATIVE, file("mygame/bin/helper", ELF_EXEC, 0o4755)], 4, False),
    ("setgid", "python", [*PYTHON, file("tool.py", "x = 1\n", 0o2755)], 4, False),
    ("fifo", "python", [*PYTHON, {"name": "pipe", "kind": "fifo"}], 4, True),
    ("pe_in_web", "web", [*WEB, file("game/setup.exe", pe_exe())], 3, False),
    ("macho_in_native", "native", [*NATIVE, file("mygame/bin/mac", macho_exe(), 0o755)], 3, False),
    ("elf_in_web", "web", [*WEB, file("game/server", ELF_EXEC, 0o755)], 3, False),
    ("elf_in_python", "python", [*PYTHON, file("helper", ELF_EXEC, 0o755)], 3, False),
    ("unexplained_elf", "native", [*NATIVE, file("mygame/bin/miner", ELF_EXEC, 0o755)], 2, False),
    ("nested_archive", "web", [*WEB, file("game/extra.zip", b"PK\x03\x04" + bytes(40))], 1, False),
    (
        "internal_symlink",
        "native",
        [*NATIVE, {"name": "mygame/lib/libhelper.so", "kind": "symlink", "link": "libhelper.so.1"}],
        1,
        False,
    ),
]
TAR_ONLY = [
    (
        "hardlink_escape",
        "native",
        [*NATIVE, {"name": "mygame/pw", "kind": "hardlink", "link": "/etc/passwd"}],
        4,
        True,
    ),
    (
        "hardlink_traversal",
        "native",
        [*NATIVE, {"name": "mygame/pw", "kind": "hardlink", "link": "../../etc/passwd"}],
        4,
        True,
    ),
    ("device", "native", [*NATIVE, {"name": "mygame/mem", "kind": "chr"}], 4, True),
    (
        "internal_hardlink",
        "native",
        [*NATIVE, {"name": "mygame/bin/mygame2", "kind": "hardlink", "link": "mygame/bin/mygame"}],
        1,
        False,
    ),
]


def snapshot(root: Path) -> set[str]:
    return {str(p.relative_to(root)) for p in root.rglob("*")}


def check_contained(tmp_path: Path, archive: Path, refused: bool, limits: Limits | None = None):
    """Extract into tmp/out/target; return the target. Asserts nothing appeared anywhere else."""
    out = tmp_path / "out"
    out.mkdir()
    before = snapshot(tmp_path)
    target = out / "target"
    if refused:
        with pytest.raises((UnsafeArchiveError, ArchiveError)):
            safe_extract(archive, target, limits)
        assert snapshot(tmp_path) == before, "a refused extraction left files behind"
        assert not Path("/tmp/playsuite-evil.txt").exists()
        return None
    safe_extract(archive, target, limits)
    outside = {p for p in snapshot(tmp_path) - before if not p.startswith("out/target")}
    assert outside == set(), f"written outside the target: {outside}"
    return target


@pytest.mark.parametrize("fmt", FORMATS)
@pytest.mark.parametrize(
    ("case", "platform", "entries", "risk", "refused"), CASES, ids=[c[0] for c in CASES]
)
def test_crafted_archive(tmp_path, fmt, case, platform, entries, risk, refused) -> None:
    if fmt == "zip" and any(e.get("kind") == "fifo" for e in entries):
        pass  # zip can carry a FIFO mode too; same expectation
    archive = make(fmt, tmp_path / case, entries)
    report = scan_archive(archive, platform=platform)
    assert report.risk >= risk, report.to_dict()
    assert report.policy == policy_for(report.risk)
    target = check_contained(tmp_path, archive, refused)
    if target is not None:
        for path in target.rglob("*"):
            if not path.is_symlink():
                assert not path.stat().st_mode & (stat.S_ISUID | stat.S_ISGID | stat.S_ISVTX)


@pytest.mark.parametrize(
    ("case", "platform", "entries", "risk", "refused"), TAR_ONLY, ids=[c[0] for c in TAR_ONLY]
)
def test_crafted_tar_only(tmp_path, case, platform, entries, risk, refused) -> None:
    archive = make_tar(tmp_path / f"{case}.tar.gz", entries)
    report = scan_archive(archive, platform=platform)
    assert report.risk >= risk, report.to_dict()
    target = check_contained(tmp_path, archive, refused)
    if case == "internal_hardlink":
        assert (target / "mygame/bin/mygame2").read_bytes() == ELF_EXEC


@pytest.mark.parametrize("fmt", FORMATS)
@pytest.mark.parametrize(
    ("platform", "entries"), [("web", WEB), ("native", NATIVE), ("python", PYTHON)]
)
def test_benign_archives_are_clean_and_extract_exactly(tmp_path, fmt, platform, entries) -> None:
    archive = make(fmt, tmp_path / "benign", entries)
    report = scan_archive(archive, platform=platform)
    assert (report.risk, report.policy, report.signals) == (0, "clean", [])
    assert scan_archive(archive).platform == platform  # guessed from contents
    assert scan_archive(archive, rating_count=51).policy == "trusted"
    assert scan_archive(archive, rating_count=50).policy == "clean"
    target = check_contained(tmp_path, archive, refused=False)
    files = {e["name"]: e for e in entries if e.get("kind", "file") == "file"}
    got = {str(p.relative_to(target)) for p in target.rglob("*") if p.is_file()}
    assert got == set(files)
    for name, spec in files.items():
        path = target / name
        assert path.read_bytes() == spec["data"]
        assert stat.S_IMODE(path.stat().st_mode) & 0o111 == spec["mode"] & 0o111


@pytest.mark.parametrize("fmt", FORMATS)
def test_compression_bomb(tmp_path, fmt) -> None:
    archive = make(fmt, tmp_path / "bomb", [*WEB, file("game/blob.bin", bytes(24 << 20))])
    report = scan_archive(archive, platform="web")
    assert report.risk >= 4 and report.has("compression_bomb"), report.to_dict()
    check_contained(tmp_path, archive, refused=True)


@pytest.mark.parametrize("fmt", FORMATS)
def test_oversize_entry(tmp_path, fmt) -> None:
    big = os.urandom(2 << 20)  # incompressible: over the entry limit, not a ratio bomb
    archive = make(fmt, tmp_path / "big", [*WEB, file("game/video.bin", big)])
    report = scan_archive(archive, platform="web", limits=SMALL)
    assert report.risk >= 4 and report.has("oversize"), report.to_dict()
    check_contained(tmp_path, archive, refused=True, limits=SMALL)
    assert scan_archive(archive, platform="web").risk == 0  # fine under the default limits


@pytest.mark.parametrize("fmt", FORMATS)
def test_truncated_download(tmp_path, fmt) -> None:
    archive = make(fmt, tmp_path / "game", [*WEB, file("game/noise.bin", os.urandom(64 << 10))])
    data = archive.read_bytes()
    archive.write_bytes(data[: len(data) // 2])
    report = scan_archive(archive)
    assert report.has("corrupt") and report.policy == "quarantine", report.to_dict()
    check_contained(tmp_path, archive, refused=True)


def test_crc_mismatch_and_lying_size(tmp_path) -> None:
    archive = make_zip(tmp_path / "game.zip", [*WEB, file("game/noise.bin", os.urandom(4096))])
    data = bytearray(archive.read_bytes())
    with zipfile.ZipFile(archive) as zf:
        info = zf.getinfo("game/noise.bin")
    start = info.header_offset + 30 + len(info.filename) + len(info.extra)
    data[start + 100] ^= 0xFF  # flip a byte of stored data
    archive.write_bytes(bytes(data))
    assert scan_archive(archive).has("corrupt")
    check_contained(tmp_path, archive, refused=True)


def test_encrypted_zip(tmp_path) -> None:
    archive = make_encrypted_zip(tmp_path / "locked.zip", "index.html", b"<p>secret</p>", b"pw")
    with zipfile.ZipFile(archive) as zf:  # a real ZipCrypto archive
        assert zf.read("index.html", pwd=b"pw") == b"<p>secret</p>"
    report = scan_archive(archive)
    assert report.has("encrypted") and report.policy == "quarantine"
    check_contained(tmp_path, archive, refused=True)


def test_not_an_archive(tmp_path) -> None:
    path = tmp_path / "game.rar"
    path.write_bytes(b"Rar!\x1a\x07\x00" + bytes(100))
    report = scan_archive(path)
    assert report.has("unsupported_format") and report.policy == "quarantine"
    check_contained(tmp_path, path, refused=True)


def test_target_must_be_empty(tmp_path) -> None:
    archive = make_zip(tmp_path / "a.zip", WEB)
    target = tmp_path / "t"
    target.mkdir()
    (target / "keep.txt").write_text("x")
    with pytest.raises(UnsafeArchiveError, match="not empty"):
        safe_extract(archive, target)
    assert snapshot(target) == {"keep.txt"}


def test_launcher_explains_native_binary(tmp_path) -> None:
    two = [*NATIVE, file("mygame/bin/editor", ELF_EXEC, 0o755)]
    archive = make_tar(tmp_path / "two.tar.gz", two)
    assert scan_archive(archive, platform="native").has("unexplained_binary")
    report = scan_archive(archive, platform="native", entry="mygame/bin/editor")
    assert not [s for s in report.signals if "editor" in " ".join(s.evidence)]
    lone = make_tar(tmp_path / "lone.tar.gz", [file("game/run", ELF_EXEC, 0o755)])
    report = scan_archive(lone)
    assert (report.platform, report.risk, report.executables) == ("native", 0, ["game/run"])


@pytest.mark.parametrize(
    ("risk", "policy"),
    [
        (9, "quarantine"),
        (4, "quarantine"),
        (3, "monitor"),
        (2, "run"),
        (1, "run"),
        (0, "clean"),
        (-1, "trusted"),
    ],
)
def test_policy_thresholds(risk, policy) -> None:
    assert policy_for(risk) == policy


def test_link_over_a_directory_is_refused(tmp_path) -> None:
    entries = [*WEB, {"name": "game/art", "kind": "symlink", "link": "../game"}]
    archive = make_tar(tmp_path / "clash.tar.gz", entries)
    check_contained(tmp_path, archive, refused=True)


NAME_PARTS = st.sampled_from(["a", "b", "..", ".", "", "/", "\\", "C:", "x.txt", "..\\", "~"])


@pytest.mark.filterwarnings("ignore:Duplicate name")
@settings(max_examples=60)
@given(
    st.lists(st.lists(NAME_PARTS, min_size=1, max_size=5).map("/".join), min_size=1, max_size=4),
    st.sampled_from(FORMATS),
)
def test_random_names_never_escape(names: list[str], fmt: str) -> None:
    root = Path(tempfile.mkdtemp(prefix="fuzz-"))
    try:
        entries = [file(n, f"data {i}") for i, n in enumerate(names) if n.strip("/")]
        if not entries:
            return
        archive = make(fmt, root / "a", entries)
        (root / "out").mkdir()
        before = snapshot(root)
        report = scan_archive(archive)
        try:
            safe_extract(archive, root / "out" / "t")
        except (UnsafeArchiveError, ArchiveError):
            assert snapshot(root) == before
            return
        assert not report.has("path_traversal") and not report.has("absolute_path")
        outside = {p for p in snapshot(root) - before if not p.startswith("out/t")}
        assert outside == set()
    finally:
        shutil.rmtree(root, ignore_errors=True)
