"""Owners and their API tokens (stored only as SHA-256 hashes)."""

from __future__ import annotations

import hashlib
import secrets
import time
from dataclasses import dataclass

from sqlalchemy import func, select
from sqlalchemy.orm import Session

from ladder.models import Bot, User
from referee.server.manifest import NAME_RE, NAME_RULE


REVOKED = "revoked:"
#: The ladder's own account, owner of the sample bots (``house_user``); nobody else may take the name.
HOUSE = "arena"


class AccountError(ValueError):
    """A user that cannot be created, or a name that names nobody."""


def hash_token(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


def add_user(db: Session, name: str) -> str:
    """Create ``name`` and return its new API token (shown once)."""
    if not NAME_RE.match(name):
        raise AccountError(f"user name {name!r} {NAME_RULE}")
    if name.lower() == HOUSE:
        # Taken before the samples were entered, it made its holder their owner: able to withdraw them and read their
        # logs; and "Arena" would pass for the ladder's own on every page.
        raise AccountError(f"user name {name!r} is the ladder's own, owner of the sample bots")
    # Names that differ only in case are one: "Alice" beside "alice" would pass for her (names are ASCII: NAME_RE).
    held = db.scalar(select(User.name).where(func.lower(User.name) == name.lower()))
    if held is not None:
        raise AccountError(f"user {name!r} exists already" + ("" if held == name else f" as {held!r} (names that differ only in case are one)"))
    token = "arena_" + secrets.token_urlsafe(24)
    db.add(User(name=name, token_hash=hash_token(token), created_at=time.time()))
    db.commit()
    return token


def _owner(db: Session, name: str) -> User:
    """The user ``name`` names, in any case, as `add_user` holds names that differ only in case for one: `user token
    ALICE` was told "no user 'ALICE'" by the ladder that refused to add ALICE beside alice."""
    user = db.scalar(select(User).where(User.name == name))
    if user is not None:
        return user
    alike = db.scalars(select(User).where(func.lower(User.name) == name.lower()).order_by(User.name)).all()
    if len(alike) == 1:
        return alike[0]
    if alike:  # made by an Arena from before names were one whatever their case
        raise AccountError(f"no user {name!r}, but {', '.join(repr(u.name) for u in alike)}: give the name as it is written")
    raise AccountError(f"no user {name!r} (arena ladder user list shows them)")


def reissue_token(db: Session, name: str) -> str:
    """Give ``name`` a new API token (shown once); the old one stops working at once."""
    user = _owner(db, name)
    token = "arena_" + secrets.token_urlsafe(24)
    user.token_hash = hash_token(token)
    db.commit()
    return token


def revoke_token(db: Session, name: str) -> str:
    """Leave ``name`` with no working token: their bots stay on the ladder, nobody can submit as them. Their name, as
    it is written."""
    user = _owner(db, name)
    # The column is unique and required: a mark no SHA-256 hex digest can equal, unique by its random tail.
    user.token_hash = (REVOKED + secrets.token_hex(32))[:64]
    db.commit()
    return user.name


@dataclass(frozen=True)
class Owner:
    name: str
    created_at: float
    bots: int
    revoked: bool


def list_users(db: Session) -> list[Owner]:
    """Every owner, by name, with their number of bots and whether their token is revoked."""
    counts = {owner: bots for owner, bots in db.execute(select(Bot.owner_id, func.count(Bot.id)).group_by(Bot.owner_id))}
    return [
        Owner(u.name, u.created_at, counts.get(u.id, 0), u.token_hash.startswith(REVOKED))
        for u in db.scalars(select(User).order_by(User.name))
    ]


def user_for_token(db: Session, token: str) -> User | None:
    return db.scalar(select(User).where(User.token_hash == hash_token(token)))


def house_user(db: Session) -> User:
    """The ladder's own user, owner of the sample bots."""
    user = db.scalar(select(User).where(User.name == HOUSE))
    if user is None:
        user = User(name=HOUSE, token_hash=hash_token(secrets.token_hex(32)), created_at=time.time())
        db.add(user)
        db.commit()
    return user
