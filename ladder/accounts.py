"""Owners and their API tokens (stored only as SHA-256 hashes)."""

from __future__ import annotations

import hashlib
import secrets
import time

from sqlalchemy import select
from sqlalchemy.orm import Session

from ladder.models import User
from referee.server.manifest import NAME_RE, NAME_RULE


class AccountError(ValueError):
    """A user that cannot be created, or a token that names nobody."""


def hash_token(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


def add_user(db: Session, name: str) -> str:
    """Create ``name`` and return its new API token (shown once)."""
    if not NAME_RE.match(name):
        raise AccountError(f"user name {name!r} {NAME_RULE}")
    if db.scalar(select(User).where(User.name == name)) is not None:
        raise AccountError(f"user {name!r} exists already")
    token = "arena_" + secrets.token_urlsafe(24)
    db.add(User(name=name, token_hash=hash_token(token), created_at=time.time()))
    db.commit()
    return token


def user_for_token(db: Session, token: str) -> User | None:
    return db.scalar(select(User).where(User.token_hash == hash_token(token)))


def house_user(db: Session) -> User:
    """The ladder's own user, owner of the sample bots."""
    user = db.scalar(select(User).where(User.name == "arena"))
    if user is None:
        user = User(name="arena", token_hash=hash_token(secrets.token_hex(32)), created_at=time.time())
        db.add(user)
        db.commit()
    return user
