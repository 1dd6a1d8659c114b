"""Builders for crafted archives (zip and tar.gz), benign and malicious, made on the fly in tests.

Entries are dicts: ``name``, ``kind`` (file | dir | symlink | hardlink | fifo | chr), ``data``
(bytes), ``mode``, ``link``. Encrypted zips use real ZipCrypto (PKWARE traditional encryption),
which Python's zipfile can decrypt with the password -- so the archive is what a user would get.
"""

from __future__ import annotations

import io
import shutil
import stat
import struct
import tarfile
import time
import zipfile
import zlib
from pathlib import Path

ELF_EXEC = Path(shutil.which("true") or "/bin/true").read_bytes()


def elf_lib() -> bytes:
    """A minimal ELF64 shared-object header (e_type = ET_DYN)."""
    ident = b"\x7fELF" + bytes([2, 1, 1, 0]) + bytes(8)
    return ident + struct.pack("<HHI", 3, 62, 1) + bytes(40)


def pe_exe() -> bytes:
    """A DOS stub pointing at a PE header, as every Windows executable starts."""
    head = bytearray(128)
    head[0:2] = b"MZ"
    head[60:64] = struct.pack("<I", 64)
    head[64:68] = b"PE\x00\x00"
    return bytes(head) + b"\x00" * 64


def macho_exe() -> bytes:
    return b"\xcf\xfa\xed\xfe" + struct.pack("<II", 0x01000007, 3) + bytes(52)


def file(name: str, data: bytes | str = b"", mode: int = 0o644) -> dict:
    return {
        "name": name,
        "kind": "file",
        "data": data.encode() if isinstance(data, str) else data,
        "mode": mode,
    }


def make_zip(path: Path, entries: list[dict]) -> Path:
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as zf:
        for e in entries:
            kind = e.get("kind", "file")
            info = zipfile.ZipInfo(e["name"], date_time=(2024, 1, 1, 0, 0, 0))
            info.create_system = 3
            info.compress_type = zipfile.ZIP_DEFLATED
            mode = e.get("mode", 0o644)
            if kind == "dir":
                info.external_attr = (stat.S_IFDIR | 0o755) << 16 | 0x10
                zf.writestr(info, b"")
            elif kind == "symlink":
                info.external_attr = (stat.S_IFLNK | 0o777) << 16
                zf.writestr(info, e["link"].encode())
            elif kind == "fifo":
                info.external_attr = (stat.S_IFIFO | 0o644) << 16
                zf.writestr(info, b"")
            else:
                info.external_attr = (stat.S_IFREG | mode) << 16
                zf.writestr(info, e.get("data", b""))
    return path


def make_tar(path: Path, entries: list[dict]) -> Path:
    with tarfile.open(path, "w:gz") as tf:
        for e in entries:
            kind = e.get("kind", "file")
            info = tarfile.TarInfo(e["name"])
            info.mtime = int(time.time())
            info.mode = e.get("mode", 0o755 if kind == "dir" else 0o644)
            data = None
            if kind == "dir":
                info.type = tarfile.DIRTYPE
            elif kind == "symlink":
                info.type, info.linkname = tarfile.SYMTYPE, e["link"]
            elif kind == "hardlink":
                info.type, info.linkname = tarfile.LNKTYPE, e["link"]
            elif kind == "fifo":
                info.type = tarfile.FIFOTYPE
            elif kind == "chr":
                info.type, info.devmajor, info.devminor = tarfile.CHRTYPE, 1, 3
            else:
                data = e.get("data", b"")
                info.size = len(data)
            tf.addfile(info, io.BytesIO(data) if data is not None else None)
    return path


def make(fmt: str, path_base: Path, entries: list[dict]) -> Path:
    if fmt == "zip":
        return make_zip(path_base.with_suffix(".zip"), entries)
    return make_tar(path_base.with_suffix(".tar.gz"), entries)


# --- ZipCrypto ---------------------------------------------------------------------------------


def _crc_table() -> list[int]:
    table = []
    for i in range(256):
        c = i
        for _ in range(8):
            c = (c >> 1) ^ 0xEDB88320 if c & 1 else c >> 1
        table.append(c)
    return table


_TABLE = _crc_table()


class _Keys:
    def __init__(self, password: bytes) -> None:
        self.k = [0x12345678, 0x23456789, 0x34567890]
        for b in password:
            self.update(b)

    @staticmethod
    def _crc(crc: int, b: int) -> int:
        return (crc >> 8) ^ _TABLE[(crc ^ b) & 0xFF]

    def update(self, b: int) -> None:
        k0, k1, k2 = self.k
        k0 = self._crc(k0, b)
        k1 = (k1 + (k0 & 0xFF)) & 0xFFFFFFFF
        k1 = (k1 * 134775813 + 1) & 0xFFFFFFFF
        k2 = self._crc(k2, (k1 >> 24) & 0xFF)
        self.k = [k0, k1, k2]

    def encrypt(self, data: bytes) -> bytes:
        out = bytearray()
        for b in data:
            t = (self.k[2] | 2) & 0xFFFF
            out.append(b ^ (((t * (t ^ 1)) >> 8) & 0xFF))
            self.update(b)
        return bytes(out)


def make_encrypted_zip(path: Path, name: str, data: bytes, password: bytes) -> Path:
    """One stored entry encrypted with ZipCrypto (general-purpose flag bit 0)."""
    crc = zlib.crc32(data)
    keys = _Keys(password)
    header = bytes(range(11)) + bytes([(crc >> 24) & 0xFF])
    payload = keys.encrypt(header + data)
    raw = name.encode()
    local = struct.pack(
        "<IHHHHHIIIHH", 0x04034B50, 20, 1, 0, 0, 0x5821, crc, len(payload), len(data), len(raw), 0
    )
    central = (
        struct.pack(
            "<IHHHHHHIIIHHHHHII",
            0x02014B50,
            0x314,
            20,
            1,
            0,
            0,
            0x5821,
            crc,
            len(payload),
            len(data),
            len(raw),
            0,
            0,
            0,
            0,
            (stat.S_IFREG | 0o644) << 16,
            0,
        )
        + raw
    )
    body = local + raw + payload
    end = struct.pack("<IHHHHIIH", 0x06054B50, 0, 0, 1, 1, len(central), len(body), 0)
    path.write_bytes(body + central + end)
    return path
