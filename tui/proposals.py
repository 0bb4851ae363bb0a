"""The engine's proposals for one submission: the model lives in `evalkit.services.review.proposals`, where
`evalkit stats`, `check` and the language server use it without Textual; the TUI imports it from here."""

from evalkit.services.review.proposals import (
    FLAG,
    LABEL,
    RANKING,
    RATING,
    REWRITE,
    Proposal,
    format_value,
    proposals_of,
)

__all__ = ["FLAG", "LABEL", "RANKING", "RATING", "REWRITE", "Proposal", "format_value", "proposals_of"]
