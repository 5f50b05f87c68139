"""The seed each bot is handed for its own randomness (``ARENA_BOT_SEED``), derived one way from the match seed.

A bot seeds its generator from it so that a match seed replays the same match. It must not tell the match seed:
the rules are public and deal every card from ``random.Random(seed)``, so a bot that knew the seed would build the
game itself and read every hand, every deck and every secret identity. It was the match seed × 1000 + the seat.

The match seed is drawn from 2**31 (the ladder's and ``arena match``'s), few enough to try them all against a fast
hash: the derivation is scrypt, memory-hard, about 17 ms once per match, so trying every seed costs about a CPU-year
per match, where playing one costs a few milliseconds more. Each seat's is then a hash of that key and the seat.
"""

from __future__ import annotations

import hashlib

#: scrypt's cost: 2**13 blocks of 1 KiB (8 MiB) for each try.
_COST = 2**13
_SALT = b"arena bot seed v1"


def match_key(match_seed: int) -> bytes:
    """The slow, one-way key of a match seed, worked out once per match."""
    return hashlib.scrypt(str(match_seed).encode(), salt=_SALT, n=_COST, r=8, p=1, dklen=32)


def bot_seed(key: bytes, seat: int) -> str:
    """``ARENA_BOT_SEED`` of ``seat``: a whole number below 2**48 (exact as a JavaScript number), in decimal."""
    return str(int.from_bytes(hashlib.sha256(key + seat.to_bytes(2, "big")).digest()[:6], "big"))
