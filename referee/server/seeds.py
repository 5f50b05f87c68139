"""Match seeds drawn at random, and the seed each bot is handed for its own randomness (``ARENA_BOT_SEED``).

A match seed deals every card: the rules are public and draw from ``random.Random(seed)``, so whoever knows a match's
seed builds the game and reads every hand, deck and secret identity. Two ways to it had to be closed:

- The bot's seed was the match seed × 1000 + the seat: any bot divided by 1000. It is now a hash of the match seed
  and the seat (48 bits: exact as a JavaScript number), which tells nothing of the seed but by trying seeds.
- Seeds were drawn below 2**31: few enough to try them all, against the bot's seed or against a bot's first hand
  (a table of every seed's deal, built once in hours of CPU, then looked up in every match). Seeds drawn at random
  (the ladder's, `arena match`'s without --seed) are now below 2**53 (``SEED_BOUND``, exact in JSON read by
  JavaScript, as the replay viewer and the API's clients read it): at a few microseconds a try, tens of thousands
  of CPU-years to try them. A seed given by hand (``--seed 7``) is as guessable as it looks.
"""

from __future__ import annotations

import hashlib
import secrets

#: Seeds drawn at random are below this: too many to try, and exact as a JavaScript number.
SEED_BOUND = 2**53
_SALT = b"arena bot seed v2"


def draw_seed() -> int:
    """A match seed from the system's source of randomness (a generator's state may follow from the seeds it drew)."""
    return secrets.randbelow(SEED_BOUND)


def bot_seed(match_seed: int, seat: int) -> str:
    """``ARENA_BOT_SEED`` of ``seat``: a whole number below 2**48, in decimal; the same for the same match seed and
    seat, so that a match seed replays the bots' own draws too."""
    digest = hashlib.sha256(_SALT + str(match_seed).encode() + b"/" + str(seat).encode()).digest()
    return str(int.from_bytes(digest[:6], "big"))
