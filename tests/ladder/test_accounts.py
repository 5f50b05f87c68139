"""Owners and their tokens (ladder/accounts.py): names checked, a token reissued or revoked works no more."""

from __future__ import annotations

from pathlib import Path

import pytest
from sqlalchemy import select
from sqlalchemy.orm import Session, sessionmaker

from ladder.accounts import AccountError, add_user, hash_token, house_user, list_users, reissue_token, revoke_token, user_for_token
from ladder.db import default_url, make_engine, migrate, sessions


@pytest.fixture
def make(tmp_path: Path) -> sessionmaker[Session]:
    url = default_url(tmp_path)
    migrate(url)
    return sessions(make_engine(url))


@pytest.mark.parametrize("name", ["bob\n", "", "-bob", "b" * 65, "bo b", "bob/x", "..", "bøb"])
def test_a_name_outside_the_rule_is_refused(make: sessionmaker[Session], name: str) -> None:
    """'bob\\n' passed: the rule's "$" matched before a final newline, and an owner's name held one."""
    with make() as db:
        with pytest.raises(AccountError, match="must start with a letter or digit"):
            add_user(db, name)
        assert list_users(db) == []


def test_a_token_names_its_owner_only_and_is_kept_as_a_hash(make: sessionmaker[Session]) -> None:
    with make() as db:
        alice, bob = add_user(db, "alice"), add_user(db, "bob")
        assert alice != bob and alice.startswith("arena_")
        assert len(alice.removeprefix("arena_")) >= 32, "192 random bits: a token cannot be guessed"
        found = user_for_token(db, alice)
        assert found is not None and found.name == "alice" and found.token_hash == hash_token(alice) != alice
        assert user_for_token(db, bob).name == "bob"  # type: ignore[union-attr]
        for wrong in ("", alice[:-1], alice + "x", hash_token(alice)):  # the stored hash is not a token either
            assert user_for_token(db, wrong) is None, wrong
        with pytest.raises(AccountError, match="exists already"):
            add_user(db, "alice")
        with pytest.raises(AccountError, match="'Alice' exists already as 'alice' \\(names that differ only in case are one\\)"):
            add_user(db, "Alice")  # would pass for alice on every page
        with pytest.raises(AccountError, match="the ladder's own"):
            add_user(db, "ARENA")
        assert user_for_token(db, alice).name == "alice", "a refused second add leaves the token"  # type: ignore[union-attr]


def test_a_reissued_or_revoked_token_stops_working_and_touches_no_one_else(make: sessionmaker[Session]) -> None:
    with make() as db:
        alice, bob = add_user(db, "alice"), add_user(db, "bob")
        again = reissue_token(db, "alice")
        assert again != alice and user_for_token(db, alice) is None
        assert user_for_token(db, again).name == "alice"  # type: ignore[union-attr]
        assert user_for_token(db, bob).name == "bob"  # type: ignore[union-attr]
        revoke_token(db, "alice")
        assert user_for_token(db, again) is None and user_for_token(db, bob).name == "bob"  # type: ignore[union-attr]
        revoke_token(db, "bob")  # a second revoked owner: the revoked mark is unique to each
        assert [(o.name, o.revoked, o.bots) for o in list_users(db)] == [("alice", True, 0), ("bob", True, 0)]
        back = reissue_token(db, "alice")
        assert user_for_token(db, back).name == "alice"  # type: ignore[union-attr]
        assert [(o.name, o.revoked) for o in list_users(db)] == [("alice", False), ("bob", True)]
        for verb in (reissue_token, revoke_token):
            with pytest.raises(AccountError, match="no user 'carol'"):
                verb(db, "carol")


def test_the_house_user_is_made_once(make: sessionmaker[Session]) -> None:
    with make() as db:
        first = house_user(db)
        assert first.name == "arena" and house_user(db).id == first.id
        assert [o.name for o in list_users(db)] == ["arena"]


def test_nobody_takes_the_house_users_name(make: sessionmaker[Session]) -> None:
    """Added before the sample bots were entered, a user named "arena" became their owner: able to withdraw them and
    read their logs with its token."""
    with make() as db:
        with pytest.raises(AccountError, match="the ladder's own, owner of the sample bots"):
            add_user(db, "arena")
        assert list_users(db) == []
        add_user(db, "arena2")
        house = house_user(db)
        assert house.name == "arena" and [o.name for o in list_users(db)] == ["arena", "arena2"]


def test_a_reissued_token_is_as_random_as_a_first_one_and_a_revoked_mark_fits_its_column(make: sessionmaker[Session]) -> None:
    """The column holds 64 characters (PostgreSQL refuses more; SQLite does not check)."""
    from ladder.models import User

    with make() as db:
        add_user(db, "alice")
        tokens = {reissue_token(db, "alice") for _ in range(3)}
        assert len(tokens) == 3 and all(len(t.removeprefix("arena_")) >= 32 and "alice" not in t for t in tokens)
        revoke_token(db, "alice")
        width = User.__table__.c.token_hash.type.length  # type: ignore[attr-defined]
        assert width == 64 and len(db.scalars(select(User.token_hash)).one()) <= width


def test_an_owner_named_in_another_case_is_the_owner_as_add_user_holds_it(make: sessionmaker[Session]) -> None:
    """`user add ALICE` is refused as alice, but `user token ALICE` was told "no user 'ALICE'"."""
    from ladder.models import User
    from ladder.submissions import retire_owner

    with make() as db:
        alice, bob = add_user(db, "alice"), add_user(db, "bob")
        again = reissue_token(db, "ALICE")
        assert user_for_token(db, alice) is None and user_for_token(db, again).name == "alice"  # type: ignore[union-attr]
        assert revoke_token(db, "Alice") == "alice" and user_for_token(db, again) is None
        assert retire_owner(db, "BOB") == ("bob", []) and user_for_token(db, bob) is None
        assert [(o.name, o.revoked) for o in list_users(db)] == [("alice", True), ("bob", True)]
        db.add(User(name="Carol", token_hash=hash_token("c1"), created_at=0.0))  # two of a ladder older than the rule
        db.add(User(name="carol", token_hash=hash_token("c2"), created_at=0.0))
        db.commit()
        with pytest.raises(AccountError, match="no user 'CAROL', but 'Carol', 'carol': give the name as it is written"):
            revoke_token(db, "CAROL")
        assert revoke_token(db, "Carol") == "Carol" and user_for_token(db, "c2").name == "carol"  # type: ignore[union-attr]
