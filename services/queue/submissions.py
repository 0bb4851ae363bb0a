"""The submissions `queue add` puts in a queue: each read and validated as `evalkit eval` reads it, and
known by its digest (SHA-256 of its JSON with sorted keys), so adding a corpus twice adds nothing new."""

from __future__ import annotations

import json
from collections.abc import Iterator, Sequence
from hashlib import sha256


def queue_items(inputs: Sequence[str], unread: list[str]) -> Iterator[tuple[str, str, str]]:
    """(digest, source, body) of each valid submission; what cannot be used goes to `unread` as a message."""
    from evalkit.services.inputs import read_inputs

    for loaded in read_inputs(inputs):
        if loaded.error is not None:
            unread.append(f"{loaded.source}: error: {loaded.error}")
            continue
        body = json.dumps(loaded.data, ensure_ascii=False, separators=(",", ":"))
        yield submission_digest(loaded.data), loaded.source, body


def submission_digest(data: object) -> str:
    canonical = json.dumps(data, ensure_ascii=False, sort_keys=True, separators=(",", ":"))
    return sha256(canonical.encode("utf-8")).hexdigest()
