"""The train / dev / test split of a labelled subject: a seeded hash of its
id, so a subject's split never changes as labels arrive (docs/alignment.md).
Light on purpose (no numpy, no scipy): label-first mode and the window's
start-up use it."""

from __future__ import annotations

import hashlib
from collections.abc import Sequence

SPLITS: tuple[str, ...] = ("train", "dev", "test")
DEFAULT_SHARES: tuple[float, float, float] = (0.2, 0.4, 0.4)


def hash_split(subject: str, seed: int = 0, shares: Sequence[float] = DEFAULT_SHARES) -> str:
    """'train', 'dev' or 'test' for a subject id: the first 8 bytes of
    sha256('<seed>:<subject>') as a number in [0, 1), cut at the cumulative
    ``shares`` (default 20 / 40 / 40 %). Depends only on the id and the seed,
    so it never changes as labels arrive. Raises ValueError unless three
    non-negative shares sum to 1."""
    if len(shares) != 3 or min(shares) < 0 or abs(sum(shares) - 1.0) > 1e-9:
        raise ValueError(f"split shares must be three non-negative numbers summing to 1, got {list(shares)}")
    digest = hashlib.sha256(f"{seed}:{subject}".encode()).digest()
    u = int.from_bytes(digest[:8], "big") / 2**64
    if u < shares[0]:
        return SPLITS[0]
    return SPLITS[1] if u < shares[0] + shares[1] else SPLITS[2]
