"""`evalkit stats`: what reviewers did with the proposals, agreement, text/JSON/HTML reports."""
