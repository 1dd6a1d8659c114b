"""The evaluated-models table (paper Tables 7 and 8): family, size, parser and template."""

from __future__ import annotations

import pandas as pd

from playsuite.registry import Registry


def models_table(registry: Registry) -> pd.DataFrame:
    """The registry's presets, ``extra`` ones (e.g. the engine checks' tiny models) left out."""
    rows = [
        {
            "preset": p.name,
            "family": p.family,
            "hf_id": p.hf_id or "",
            "params_b": p.params_b,
            "params_active_b": p.params_active_b,
            "params_effective_b": p.params_effective_b,
            "parser": p.parser,
            "template": p.template,
            "gpus": p.gpus,
        }
        for p in registry.presets.values()
        if not p.extra
    ]
    order = {"VLM": 0, "CUA": 1, "VLA": 2, "baseline": 3}
    df = pd.DataFrame(rows)
    df["_order"] = df["family"].map(order)
    return df.sort_values(["_order", "preset"], kind="stable").drop(columns="_order")
