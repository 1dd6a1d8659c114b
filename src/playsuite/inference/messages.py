"""Building OpenAI chat-completions message content: text, images and videos as data URLs.

vLLM's OpenAI-compatible server takes images as ``image_url`` parts and videos as ``video_url``
parts whose URL may be a ``data:`` URL (base64). Sending the bytes inline keeps the model server
free of any file-system access to episode directories, so no ``--allowed-local-media-path`` is
needed and a worker never exposes its files to the server.
"""

from __future__ import annotations

import base64
import io
import os
from collections.abc import Iterable, Sequence
from typing import Any

import numpy as np

#: Encodings :func:`image_data_url` can produce (PIL format name -> MIME type).
IMAGE_FORMATS: dict[str, str] = {"png": "image/png", "jpeg": "image/jpeg", "webp": "image/webp"}

_PNG_MAGIC = b"\x89PNG\r\n\x1a\n"


def data_url(payload: bytes, mime: str) -> str:
    """``data:{mime};base64,...`` for ``payload``."""
    return f"data:{mime};base64,{base64.b64encode(payload).decode('ascii')}"


def encode_frame(frame: np.ndarray, fmt: str = "png", quality: int = 90) -> bytes:
    """Encode an ``HxWx3`` (RGB) or ``HxW`` (grey) ``uint8`` frame as PNG/JPEG/WebP bytes."""
    from PIL import Image  # imported here: only workers that send frames pay for it

    fmt = fmt.lower()
    if fmt not in IMAGE_FORMATS:
        raise ValueError(f"image format must be one of {sorted(IMAGE_FORMATS)}, got {fmt!r}")
    array = np.asarray(frame)
    if array.dtype != np.uint8:
        raise ValueError(f"frame must be uint8, got {array.dtype}")
    if array.ndim == 3 and array.shape[2] == 4:
        array = array[:, :, :3]
    if not (array.ndim == 2 or (array.ndim == 3 and array.shape[2] == 3)):
        raise ValueError(f"frame must be HxW or HxWx3, got shape {array.shape}")
    if array.shape[0] == 0 or array.shape[1] == 0:
        raise ValueError(f"frame is empty: shape {array.shape}")
    buf = io.BytesIO()
    options: dict[str, Any] = {"quality": quality} if fmt in ("jpeg", "webp") else {}
    Image.fromarray(np.ascontiguousarray(array)).save(buf, format=fmt.upper(), **options)
    return buf.getvalue()


def image_data_url(image: np.ndarray | bytes, fmt: str = "png") -> str:
    """A data URL for a frame (ndarray, encoded as ``fmt``) or already-encoded PNG/JPEG bytes."""
    if isinstance(image, bytes | bytearray | memoryview):
        raw = bytes(image)
        if raw.startswith(_PNG_MAGIC):
            return data_url(raw, "image/png")
        if raw.startswith(b"\xff\xd8\xff"):
            return data_url(raw, "image/jpeg")
        if raw[:4] == b"RIFF" and raw[8:12] == b"WEBP":
            return data_url(raw, "image/webp")
        raise ValueError("image bytes are not PNG, JPEG or WebP")
    return data_url(encode_frame(image, fmt), IMAGE_FORMATS[fmt.lower()])


def video_data_url(video: bytes | str | os.PathLike[str], mime: str = "video/mp4") -> str:
    """A data URL for a video file's bytes (or the file at a path)."""
    if isinstance(video, str | os.PathLike):
        with open(video, "rb") as fh:
            video = fh.read()
    if not video:
        raise ValueError("video is empty")
    return data_url(bytes(video), mime)


def text_part(text: str) -> dict[str, Any]:
    return {"type": "text", "text": text}


def image_part(url: str) -> dict[str, Any]:
    return {"type": "image_url", "image_url": {"url": url}}


def video_part(url: str) -> dict[str, Any]:
    return {"type": "video_url", "video_url": {"url": url}}


def user_message(
    text: str,
    images: Iterable[np.ndarray | bytes | str] = (),
    videos: Iterable[bytes | str] = (),
    *,
    media_first: bool = True,
) -> dict[str, Any]:
    """A ``user`` message with media parts and one text part.

    ``images`` items are frames, encoded image bytes, or ready URLs (``data:``/``http``/``file``);
    ``videos`` items are bytes or ready URLs. Media come before the text by default, which is
    the order Qwen-VL-style chat templates were trained with.
    """
    media: list[dict[str, Any]] = []
    for image in images:
        url = image if isinstance(image, str) else image_data_url(image)
        media.append(image_part(url))
    for video in videos:
        url = video if isinstance(video, str) else video_data_url(video)
        media.append(video_part(url))
    parts = [*media, text_part(text)] if media_first else [text_part(text), *media]
    return {"role": "user", "content": parts}


def system_message(text: str) -> dict[str, Any]:
    return {"role": "system", "content": text}


def assistant_message(text: str) -> dict[str, Any]:
    return {"role": "assistant", "content": text}


def count_media(messages: Sequence[dict[str, Any]]) -> dict[str, int]:
    """How many ``image``/``video`` parts a conversation carries (vLLM limits these per prompt)."""
    counts = {"image": 0, "video": 0}
    for message in messages:
        content = message.get("content")
        if isinstance(content, list):
            for part in content:
                kind = part.get("type") if isinstance(part, dict) else None
                if kind == "image_url":
                    counts["image"] += 1
                elif kind == "video_url":
                    counts["video"] += 1
    return counts
