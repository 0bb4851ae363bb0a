"""Documentation for completion items and hovers, written from the schemas and the config (Markdown).

A key's text is its schema `description`, its type in words and its first schema `example` as YAML; a
dimension's adds the ideal and tolerance the config gives it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import yaml

from evalkit.engine.config import Config
from evalkit.engine.plan import DEFAULT_DIMENSIONS
from evalkit.lsp import schemanav
from evalkit.lsp.schemanav import Schema


@dataclass(frozen=True, slots=True)
class DimensionSetting:
    ideal: float
    tolerance: float
    origin: str  # "dimensions.yaml" or "built-in default"


def example_yaml(key: str | None, value: Any) -> str:
    data = {key: value} if key is not None else value
    return yaml.safe_dump(
        data, sort_keys=False, allow_unicode=True, default_flow_style=None, width=100
    ).strip()


def key_markdown(top: Schema, name: str, node: Schema) -> str:
    parts = [f"**`{name}`** · {schemanav.type_words(top, node)}"]
    if node.get("description"):
        parts.append(str(node["description"]))
    found, example = schemanav.first_example(node)
    if found:
        parts.append(f"Example:\n```yaml\n{example_yaml(name, example)}\n```")
    return "\n\n".join(parts)


def dimension_settings(config: Config | None) -> dict[str, DimensionSetting]:
    """Each dimension's ideal and tolerance as the (last valid) config sets them."""
    declared = (config.data("dimensions").get("dimensions") or {}) if config is not None else {}
    values = config.plan.dimensions if config is not None and config.plan is not None else DEFAULT_DIMENSIONS
    return {
        name: DimensionSetting(
            ideal, tolerance, "dimensions.yaml" if name in declared else "built-in default"
        )
        for name, (ideal, tolerance) in values.items()
    }


def dimension_markdown(name: str, setting: DimensionSetting | None) -> str:
    node = schemanav.node_at("dimensions", ("dimensions", name)) or {}
    if setting is None:
        return f"**dimension `{name}`**\n\n{node.get('description', '')}".strip()
    ideal, tolerance = f"{setting.ideal:g}", f"{setting.tolerance:g}"
    parts = [
        f"**dimension `{name}`** · ideal {ideal}, tolerance {tolerance}",
        str(node.get("description", "")),
        f"A rating outside {ideal} ± {tolerance} is pulled toward {ideal} ({setting.origin}).",
    ]
    return "\n\n".join(part for part in parts if part)
