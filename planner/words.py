"""How the product words a count: its noun in the right number, thousands separated."""

from __future__ import annotations

__all__ = ["counted"]


def counted(n: int, noun: str, plural: str | None = None, *, between: str = "") -> str:
    """``1 GPU``, ``2 GPUs``, ``1,204 rows``, ``3 fewer GPUs`` (``between="fewer"``);
    ``plural`` for a noun not made plural by an ``s`` (``class``: ``classes``)."""
    words = [f"{n:,}", between, noun if n == 1 else plural or f"{noun}s"]
    return " ".join(w for w in words if w)
