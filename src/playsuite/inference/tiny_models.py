"""Tiny random-weight vision-language models for the real vLLM engine on a CPU.

Runs in the *engine's* Python (``.venv-engine``: torch, transformers, tokenizers), never in the
project's: ``playsuite engine build-tiny`` starts it there. Nothing comes from a model hub. Each
model is a real architecture that the pinned vLLM serves (Qwen2-VL, Qwen2.5-VL, Qwen3-VL) with
the smallest shapes vLLM's CPU backend accepts, random weights from a fixed seed, and a byte-level
BPE tokenizer trained here on a fixed text, so that the same command gives the same bytes on
every machine. Their answers are noise: they exist so that every path a real model takes (the
server's command line and lifecycle, chat templates, image and video inputs, schema-constrained
decoding, the client, parsers) runs against the real engine in tests and in the embedded default.

Constraints measured on vLLM 0.32's CPU backend (../shared/FIELD-NOTES.md, "vLLM on CPU"): the
attention head size must be one it has kernels for (32 here); the multimodal rope sections must
sum to half the head size; small pixel budgets keep the engine's start-up profiling trivial.

Usage (engine Python): ``python tiny_models.py --out DIR --arch qwen2_vl``.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import sys
from pathlib import Path

#: Qwen2's special tokens, in Qwen's order (their ids follow the trained vocabulary).
SPECIAL_TOKENS = (
    "<|endoftext|>",
    "<|im_start|>",
    "<|im_end|>",
    "<|object_ref_start|>",
    "<|object_ref_end|>",
    "<|box_start|>",
    "<|box_end|>",
    "<|quad_start|>",
    "<|quad_end|>",
    "<|vision_start|>",
    "<|vision_end|>",
    "<|vision_pad|>",
    "<|image_pad|>",
    "<|video_pad|>",
)

#: Architectures this builder makes: name -> (transformers config and model classes, vision patch).
ARCHITECTURES = ("qwen2_vl", "qwen2_5_vl", "qwen3_vl")

VOCAB_SIZE = 1024  # trained BPE vocabulary, before the special tokens
HIDDEN = 128
LAYERS = 2
HEADS = 4  # head size 32: one of the sizes vLLM's CPU attention has kernels for
KV_HEADS = 2
MAX_POSITIONS = 32768
SEED = 0

#: A chat template in the Qwen style: system/user/assistant turns between <|im_start|> and
#: <|im_end|>; an image part becomes vision_start + image_pad + vision_end, a video part the same
#: with video_pad (the processor expands each pad to the item's tokens).
CHAT_TEMPLATE = """\
{%- for message in messages -%}
<|im_start|>{{ message['role'] }}
{% if message['content'] is string -%}
{{ message['content'] }}
{%- else -%}
{%- for part in message['content'] -%}
{%- if part['type'] == 'text' -%}{{ part['text'] }}
{%- elif part['type'] in ('image', 'image_url') -%}<|vision_start|><|image_pad|><|vision_end|>
{%- elif part['type'] in ('video', 'video_url') -%}<|vision_start|><|video_pad|><|vision_end|>
{%- endif -%}
{%- endfor -%}
{%- endif %}<|im_end|>
{% endfor -%}
{%- if add_generation_prompt -%}<|im_start|>assistant
{% endif -%}
"""


def training_text() -> list[str]:
    """The fixed text the tokenizer learns from: the words games, actions and judges use."""
    words = """
    press click release hold move drag scroll wait type key keys mouse left right up
    down space enter escape tab shift ctrl alt backspace delete home end page arrow
    button action actions thought reasoning step steps frame frames screen screenshot
    game play player level score menu start title gameplay control interaction death
    over win checkpoint objective completed area reached increased stuck looping
    milestones field on_screen t_sec true false null the a an of to in and is it you see
    what next gameplay_happened menu_or_title_seen left_menu_into_gameplay
    player_control_evident distinct_interactions score_or_resource_increased
    new_area_or_level_reached checkpoint_or_objective_completed win_or_completion_screen
    death_or_game_over_count stuck_or_looping x y w h ms s seconds
    """.split()  # noqa: SIM905
    lines = [" ".join(words[i : i + 12]) for i in range(0, len(words), 12)]
    lines += [f"{n} {n * 7 % 1000} ({n}, {n * 3 % 800})" for n in range(1000)]
    lines += ['{"a": 1, "b": [true, false, null], "c": "text"}', "[[10,20]] <point>x y</point>"]
    lines += [chr(c) for c in range(32, 127)]
    return lines


def build_tokenizer(out: Path) -> int:
    """Train the tokenizer, save it with the chat template; the id of the first special token."""
    from tokenizers import Tokenizer, models, pre_tokenizers, trainers
    from transformers import Qwen2Tokenizer

    bpe = Tokenizer(models.BPE())
    bpe.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    trainer = trainers.BpeTrainer(
        vocab_size=VOCAB_SIZE,
        initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
        show_progress=False,
    )
    bpe.train_from_iterator(training_text(), trainer=trainer)
    model = json.loads(bpe.to_str())["model"]
    vocab = dict(sorted(model["vocab"].items(), key=lambda kv: kv[1]))
    merges = [tuple(m.split(" ")) if isinstance(m, str) else tuple(m) for m in model["merges"]]
    tokenizer = Qwen2Tokenizer(
        vocab=vocab,
        merges=merges,
        unk_token=None,
        eos_token="<|im_end|>",
        pad_token="<|endoftext|>",
    )
    tokenizer.add_special_tokens({"additional_special_tokens": list(SPECIAL_TOKENS)})
    tokenizer.chat_template = CHAT_TEMPLATE
    tokenizer.save_pretrained(out)
    return len(vocab)


def _token_ids(first: int) -> dict[str, int]:
    return {token: first + i for i, token in enumerate(SPECIAL_TOKENS)}


def _configs(arch: str, vocab_size: int, ids: dict[str, int]) -> object:
    import transformers as tf

    text = {
        "vocab_size": vocab_size,
        "hidden_size": HIDDEN,
        "intermediate_size": 2 * HIDDEN,
        "num_hidden_layers": LAYERS,
        "num_attention_heads": HEADS,
        "num_key_value_heads": KV_HEADS,
        "max_position_embeddings": MAX_POSITIONS,
        "bos_token_id": ids["<|endoftext|>"],
        "eos_token_id": ids["<|im_end|>"],
        "pad_token_id": ids["<|endoftext|>"],
        "tie_word_embeddings": True,
        # multimodal rope: temporal, height and width sections sum to head_size / 2 = 16
        "rope_parameters": {
            "rope_type": "default",
            "rope_theta": 1000000.0,
            "mrope_section": [4, 6, 6],
            **({"mrope_interleaved": True} if arch == "qwen3_vl" else {}),
        },
    }
    tokens = {
        "image_token_id": ids["<|image_pad|>"],
        "video_token_id": ids["<|video_pad|>"],
        "vision_start_token_id": ids["<|vision_start|>"],
        "vision_end_token_id": ids["<|vision_end|>"],
        "tie_word_embeddings": True,
    }
    if arch == "qwen2_vl":
        vision = {"depth": 2, "embed_dim": 64, "hidden_size": HIDDEN, "num_heads": 2}
        return tf.Qwen2VLConfig(text_config=text, vision_config=vision, **tokens)
    if arch == "qwen2_5_vl":
        vision = {
            "depth": 2,
            "hidden_size": 64,
            "intermediate_size": 128,
            "num_heads": 2,
            "out_hidden_size": HIDDEN,
            "fullatt_block_indexes": [1],
            "window_size": 112,
        }
        return tf.Qwen2_5_VLConfig(text_config=text, vision_config=vision, **tokens)
    if arch == "qwen3_vl":
        text = {**text, "head_dim": HIDDEN // HEADS}
        vision = {
            "depth": 2,
            "hidden_size": 64,
            "intermediate_size": 128,
            "num_heads": 2,
            "out_hidden_size": HIDDEN,
            "num_position_embeddings": 144,
            "deepstack_visual_indexes": [0],
        }
        return tf.Qwen3VLConfig(text_config=text, vision_config=vision, **tokens)
    raise SystemExit(f"unknown architecture {arch!r}; known: {', '.join(ARCHITECTURES)}")


def _processor(arch: str, out: Path) -> None:
    import transformers as tf

    patch = 16 if arch == "qwen3_vl" else 14
    unit = (patch * 2) ** 2  # pixels per merged vision token
    budget = {"min_pixels": 4 * unit, "max_pixels": 64 * unit}
    names = {
        "qwen2_vl": ("Qwen2VLImageProcessor", "Qwen2VLVideoProcessor", "Qwen2VLProcessor"),
        "qwen2_5_vl": ("Qwen2VLImageProcessor", "Qwen2VLVideoProcessor", "Qwen2_5_VLProcessor"),
        "qwen3_vl": ("Qwen2VLImageProcessor", "Qwen3VLVideoProcessor", "Qwen3VLProcessor"),
    }[arch]
    image_cls, video_cls, processor_cls = (getattr(tf, n) for n in names)
    image = image_cls(patch_size=patch, **budget)
    video_kwargs = {"size": {"shortest_edge": budget["min_pixels"], "longest_edge": 16 * unit}}
    video = video_cls(patch_size=patch, **video_kwargs)
    tokenizer = tf.AutoTokenizer.from_pretrained(out)
    processor = getattr(tf, processor_cls.__name__)(
        image_processor=image, tokenizer=tokenizer, video_processor=video,
        chat_template=CHAT_TEMPLATE,
    )  # fmt: skip
    processor.save_pretrained(out)


def build(arch: str, out: Path) -> dict[str, object]:
    """Build one tiny model into ``out``; a summary (parameters, files, content digest)."""
    import torch
    import transformers as tf

    out.mkdir(parents=True, exist_ok=True)
    vocab = build_tokenizer(out)
    ids = _token_ids(vocab)
    config = _configs(arch, vocab + len(SPECIAL_TOKENS), ids)
    config.dtype = "float32"
    torch.manual_seed(SEED)
    model_cls = {
        "qwen2_vl": tf.Qwen2VLForConditionalGeneration,
        "qwen2_5_vl": tf.Qwen2_5_VLForConditionalGeneration,
        "qwen3_vl": tf.Qwen3VLForConditionalGeneration,
    }[arch]
    model = model_cls(config).to(torch.float32)
    model.generation_config.do_sample = False
    model.save_pretrained(out, safe_serialization=True)
    _processor(arch, out)
    digest = hashlib.sha256()
    for path in sorted(p for p in out.rglob("*") if p.is_file()):
        digest.update(path.relative_to(out).as_posix().encode())
        digest.update(path.read_bytes())
    return {
        "arch": arch,
        "parameters": sum(p.numel() for p in model.parameters()),
        "bytes": sum(p.stat().st_size for p in out.rglob("*") if p.is_file()),
        "sha256": digest.hexdigest(),
    }


def main(argv: list[str] | None = None) -> int:
    # Offline, whoever starts it: nothing comes from a hub, and the saved tokenizer config records
    # the offline flag, so the bytes do not depend on the caller's environment.
    os.environ["HF_HUB_OFFLINE"] = "1"
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", required=True, type=Path, help="model directory to write")
    parser.add_argument("--arch", required=True, choices=ARCHITECTURES)
    args = parser.parse_args(argv)
    print(json.dumps(build(args.arch, args.out)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
