"""A game's enum values and card-id fields in words, for what a person reads: ``arena replay --text``, ``arena play``, and
the browser's viewer (the frames carry the words: ``build_frames``); and the verdicts' kinds by the same rule
(``verdict_words``: "illegal action"), where a person reads them: ``arena match``'s table, ``arena replay --text``,
``arena ladder matches`` and the web pages' badges (each page carries the words: ladder/web/routes.py ``render``).
What a program reads (the ``--json`` outputs, the API, replay files) keeps the protocol's names.

An enum value reads as its name less the prefix its enum's values share, lower case, underscores as spaces: Glory's
``GloryReason`` ``GLORY_KING_DEFENCE_ASSIST`` is "king defence assist", Land & Castle's ``PHASE_CLAIM`` "claim",
``TURN`` "turn". The words come from the game's protobuf descriptors, so that a new enum reads in words with no table
to keep; ``OVERRIDES`` holds the few the rule reads badly. A field named ``*_id``/``*_ids`` (``card_ids``,
``land_ids``, ``money_ids``) holds card ids, which the protocol defines to be the cards' identities, so it reads as the
cards: "lands 2s, money 4d", as an event's Card messages read.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from functools import cache
from types import MappingProxyType
from typing import Any

from google.protobuf.descriptor import Descriptor, EnumDescriptor, FileDescriptor

from referee.games.registry import GAMES

#: The words the rule gives that read badly, and what they read as instead.
OVERRIDES: Mapping[str, str] = MappingProxyType({
    "attack king": "attack on the king",  # Glory's AttackKind: a kind of attack, not an order
    "conquer land": "conquest of a land",
    "over": "game over",  # a phase: "over" alone says not what is over
    "malformed": "malformed message",  # the verdict MALFORMED: an adjective alone says not what was malformed
    "no show": "no-show",  # the verdict NO_SHOW: the noun
})  # fmt: skip
#: The fields the protocol names by an abbreviation, or by a word that says too little, and what they read as: "hp 43 · vp
#: 0" left a spectator guessing, and so did General's War's and Land & Castle's "known" (GW-17, LC-25: the face-down
#: cards of each seat's pile and hand that this seat knows), a heading that said not what was known.
FIELD_WORDS: Mapping[str, str] = MappingProxyType({"hp": "hit points", "vp": "victory points", "known": "known face-down cards"})
#: Fields of a game's messages read by the ``kind`` (an enum value) of the message holding them: in other words where
#: the field's name says another thing for that kind, left out (None) where that kind makes them meaningless. Glory's
#: battle holds the fields of every kind of attack, and read "mini round 1 · presented none" in a conquest or an attack
#: on the king, which have no mini-round of assassins (G-20); a conquest has no offers or assistance (G-13), an
#: assassination no Mercenaries or help either; and an assassination's "attack points" and "defence points" count the
#: assassins each side presented (glory.proto), in the rules' words those the attacker presents and the defender matches
#: (and "presented" alone those of the current mini-round). Its last battle read "land taken – · eliminated no ·
#: attacker assistants none" after an attack on the king, which takes no land, and "damage 0" after a conquest, which
#: deals none.
KIND_FIELDS: Mapping[str, Mapping[str, Mapping[str, str | None]]] = MappingProxyType({
    "glory": {
        "CONQUER_LAND": dict.fromkeys((
            "mini_round", "presented", "attacker_offers", "defender_offers", "assists", "attacker_assistants", "defender_assistants", "damage",
            "eliminated",
        )),
        "ATTACK_KING": dict.fromkeys(("mini_round", "presented", "land_taken")),
        "ASSASSINATION": {
            **dict.fromkeys(("mercenaries", "attacker_offers", "defender_offers", "assists", "attacker_assistants", "defender_assistants", "land_taken")),
            "attack_points": "assassins presented", "defence_points": "assassins matched", "presented": "presented this mini round",
        },
    },
    # Generals & Assassins' assassination: no one assists it or is offered land for it (the rules' "Other players may not
    # assist during assassinations"), and it counts no points ("0 for assassinations", generals_and_assassins.proto)
    # and its attack's "declined: seat 0" did not say to what: those seats chose not to assist
    "generals-and-assassins": {
        "ASSASSINATION": dict.fromkeys(("offers", "assists", "declined", "attack_points", "defence_points")),
        "ATTACK": {"declined": "declined_to_assist"},
    },
})  # fmt: skip
#: Flags of a game's messages, as ``kind.field`` (the message's kind as its oneof names it), said by what they mean
#: rather than "field yes/no": (true, false). Generals & Assassins' ``blocking`` tells whether the defender or the
#: attacker had the second assassin to play, and "assassin declined: seat 2, blocking no" told neither (GA-12).
FLAG_WORDS: Mapping[str, Mapping[str, tuple[str, str]]] = MappingProxyType({
    "generals-and-assassins": {
        "assassin_declined.blocking": ("did not block the assassin", "did not attempt the assassination again"),
        "assassin_played.blocking": ("to block the assassin", "to attempt the assassination again"),
        "assassin_choice.blocking": ("to block the assassin", "to attempt the assassination again"),
        # every round's end read "game over no"
        "round_ended.game_over": ("the game is over", "another round follows"),
    },
    # Glory's game end read "tie unbroken no" after every game with one winner, and its turn's choice "can pass no"
    # whenever the hand held a card (passing is the only action of an empty hand)
    "glory": {
        "game_ended.tie_unbroken": ("still tied after the last extra round: the win is shared", "no tie"),
        "turn_choice.can_pass": ("the hand is empty: pass is the only action", "no passing with cards in hand"),
    },
    # The Assassination Game's answers and its president's moves: a replay's JSON leaves a false flag out, and every player
    # who stayed out of the holding cell read "leave cell" (AS-31), a police officer who let the sniper go "detain sniper"
    # (AS-22); where the flag was written, "leave no", "by secret service no"
    "assassination": {
        "leave_cell.leave": ("leave the cell, revealed", "stay"),
        "detain_sniper.detain": ("detain them", "let them go"),
        "react.detain": ("detain the bomber", "do not detain him"),
        "choose_allegiance.bad_cop": ("be the bad cop", "stay on the president's side"),
        "president_moved.by_secret_service": ("led by the Secret Service agent", "on his own"),
    },
    # General's War's round end read "interrupted no" after every round: the round was cut short by the death of a
    # fighter's last general (with two players he lost the game, GW-4 and GW-21; with four he is eliminated, GW-6)
    # and its squad choice "attacking no" for "as the defender"
    "generals-war": {
        "round_ended.interrupted": ("cut short: a last general died", "played to the end"),
        "squad_choice.attacking": ("as the attacker", "as the defender"),
    },
})  # fmt: skip
#: Fields of an action or an event, as ``kind.field``, by game, whose list is the choice made, so that an empty one says
#: "none" ("thwart: cards none", "assist chosen: seat 0 (alice), cards none") where other empty lists are left out: left
#: out, Glory's "thwart" with no joker read as a thwart, and General's War's "reveal generals" that reveals no ace read as
#: a reveal beside "reveal generals: cards As". By game, since kinds share names across games: Land & Castle's
#: ``defend`` names one card (``card_id``), and read "defend: card Js, cards none". Sent with the frames
#: (``empty_told``): the viewer reads them as the terminal does.
EMPTY_TOLD: Mapping[str, frozenset[str]] = MappingProxyType({
    "glory": frozenset({
        "thwart.card_ids", "more_assassins.card_ids", "defend.card_ids", "make_offers.offers", "thwart_chosen.cards",
        "defence_committed.cards", "offers_made.offers", "assist_chosen.cards",
    }),
    "generals-and-assassins": frozenset({"defend.card_ids", "offer_lands.offers", "defence_committed.cards", "lands_offered.offers"}),
    "generals-war": frozenset({"reveal_generals.card_ids", "reveal_choice.revealable"}),
})  # fmt: skip
#: What a table (a state, an event) leaves out, or says in words, where the rules make a field meaningless or its absence
#: tells something, by game; each rule holds ``fields`` to leave out, or ``unset`` (a field missing or null, in words),
#: and the conditions it holds under, all of them: ``in`` (the message is the value, or an entry of the list, of one of
#: these fields), ``players`` (the match has one of these numbers of seats), ``phases`` (the state's phase is one of
#: these), ``own`` (an entry of the viewing seat itself: its ``seat`` is the view's), ``without`` (the message does not
#: hold this field yet); ``null`` leaves out those of its fields that are missing or null (a full state gives them null
#: where a seat's view leaves them out: "fight –", "last battle none" before there is one). Sent with the frames
#: (``left_out``): the viewer reads them as the terminal does.
#: General's War's conquest points win a two-player game alone and its defeat points eliminate in a four-player game
#: alone (the rules' "Four Players"), and a two-seat table read "defeat limit 3 · defeat points 0 · eliminated no"; a
#: seat's own "known face-down cards" never hold its hand (GW-17, LC-25: its hand is ``hand``) and read "hand none", as
#: if its hand were empty; a tied battle has no winner (both squads die) and read as one whose winner was not told. Land
#: & Castle's setup (castle, general) has no turn, attacker or defender yet and read "turn 0 · attacker seat 0", and its
#: battle "undercut no" before the defender had answered (an undercut is the defender's), with "defender none · winner
#: none"; its full state read "battle none · last battle none · winner none · win reason none" from the setup on, where
#: a seat's view leaves out what is not there yet; and a game drawn at the turn limit (LC-19) has no winner, and said so
#: nowhere ("game over: reason: turn limit"; "winner none" as if not yet told).
LEFT_OUT: Mapping[str, tuple[Mapping[str, Any], ...]] = MappingProxyType({
    "generals-war": (
        {"fields": ("defeat_limit", "defeat_points", "eliminated"), "players": (2,)},
        {"fields": ("conquest_target", "conquest_points"), "players": (4,)},
        {"fields": ("hand",), "in": ("known",), "own": True},
        {"unset": {"winner": "none: a tie, both squads die"}, "in": ("battle", "last_battle")},
    ),
    "land-and-castle": (
        {"fields": ("hand",), "in": ("known",), "own": True},
        {"fields": ("turn", "attacker", "defender"), "phases": ("PHASE_CASTLE", "PHASE_GENERAL")},
        {"fields": ("undercut", "defender", "winner"), "in": ("battle",), "without": "defender"},
        {"null": ("battle", "last_battle"), "in": ("",)},
        {"fields": ("winner", "win_reason"), "in": ("",), "phases": ("PHASE_CASTLE", "PHASE_GENERAL", "PHASE_ATTACK", "PHASE_DEFEND", "PHASE_CLAIM")},
        {"unset": {"winner": "none: a draw, as many lands each"}, "in": ("",), "phases": ("PHASE_OVER",)},
        {"unset": {"winner": "none: a draw, as many lands each"}, "in": ("game_over",)},
    ),
    # Glory's full state read "next first player – · winners none" in every round, "fight –" between attacks
    "glory": (
        {"null": ("fight", "last_battle", "next_first_player"), "in": ("",)},
        {"fields": ("winners",), "in": ("",), "phases": ("TURN", "OFFERS", "ASSIST", "DEFEND", "THWART", "MORE_ASSASSINS", "ROUND_OVER")},
    ),
    # Generals & Assassins' full state read "final turns left none · fight none · last battle none"; its battle under way
    # "resolved no · damage 0" in every seat's view, and the last one "resolved yes"
    "generals-and-assassins": (
        {"null": ("fight", "last_battle", "battle", "final_turns_left", "acting"), "in": ("",)},
        {"fields": ("resolved", "damage"), "in": ("battle",)},
        {"fields": ("resolved",), "in": ("last_battle",)},
    ),
})  # fmt: skip
#: A field of card ids (``card_id``, ``land_ids``): every such field of the games' messages holds card ids.
CARD_ID_KEY = re.compile(r"^\w+_ids?$")
#: What a field of ids is called once its ids are cards, where adding an "s" is wrong.
UNCOUNTED = frozenset({"money"})
NO_WORDS: Mapping[str, str] = MappingProxyType({})
NO_KIND_FIELDS: Mapping[str, Mapping[str, str | None]] = MappingProxyType({})
NO_FLAG_WORDS: Mapping[str, tuple[str, str]] = MappingProxyType({})


def field_label(key: str) -> str:
    """A field's name as a person reads it: ``hand_size`` "hand size", ``hp`` "hit points" (``FIELD_WORDS``)."""
    return FIELD_WORDS.get(key, key.replace("_", " "))


def id_label(key: str) -> str:
    """A field of card ids named for its cards: ``card_ids`` "cards", ``card_id`` "card", ``money_ids`` "money"."""
    if key.endswith("_id"):
        return key.removesuffix("_id").replace("_", " ")
    thing = key.removesuffix("_ids").replace("_", " ")
    return thing if thing in UNCOUNTED else thing + "s"


def shared_prefix(names: list[str]) -> str:
    """The whole words (``GLORY_``) every name starts with and none is made of alone; "" for none."""
    split = [name.split("_") for name in names]
    n = 0
    while all(len(words) > n + 1 and words[n] == split[0][n] for words in split):
        n += 1
    return "".join(word + "_" for word in split[0][:n])


def value_words(enum: EnumDescriptor) -> dict[str, str]:
    """Each value of ``enum`` in words; the zero value that only says none was set (``*_UNSPECIFIED``) "unspecified"."""
    prefix = shared_prefix([v.name for v in enum.values])
    out = {}
    for value in enum.values:
        if value.number == 0 and value.name.endswith("_UNSPECIFIED"):
            said = "unspecified"
        else:
            said = value.name.removeprefix(prefix).lower().replace("_", " ")
        out[value.name] = OVERRIDES.get(said, said)
    return out


def _enums(file: FileDescriptor) -> Iterator[EnumDescriptor]:
    """The enums of ``file``, nested ones too, then those of the files it imports (the cards' ``Suit``, ``Rank``)."""

    def nested(message: Descriptor) -> Iterator[EnumDescriptor]:
        yield from message.enum_types
        for inner in message.nested_types:
            yield from nested(inner)

    yield from file.enum_types_by_name.values()
    for message in file.message_types_by_name.values():
        yield from nested(message)
    for imported in file.dependencies:
        if not imported.package.startswith("google."):
            yield from _enums(imported)


@cache
def enum_words(game: str) -> Mapping[str, str]:
    """Every enum value of ``game``'s messages in words, by its name (a name the game spells one way alone: the
    protocol's enums are scoped by package, and the game's own come first); none for a game not known here."""
    if game not in GAMES:
        return NO_WORDS
    module: Any = GAMES[game].proto_module
    out: dict[str, str] = {}
    for enum in _enums(module.DESCRIPTOR):
        for name, said in value_words(enum).items():
            out.setdefault(name, said)
    return MappingProxyType(out)


def enum_text(key: str, said: str, label: str) -> str:
    """An enum field and its value in words, phrased for the field: a ``kind`` is said alone ("attack on the king"), a
    ``phase`` as one ("turn phase", but "game over"), any other after its name ("reason: king defence")."""
    if key == "kind":
        return said
    if key == "phase":
        return said if said.endswith(" over") else f"{said} phase"
    return f"{label}: {said}"


@cache
def verdict_words() -> Mapping[str, str]:
    """Each verdict kind (referee.proto's ``VerdictKind``) in words, by its name: ``ILLEGAL_ACTION`` "illegal action"."""
    from arena.v1 import referee_pb2 as pb

    return MappingProxyType(value_words(pb.VerdictKind.DESCRIPTOR))


def verdict_json(v: Any) -> dict[str, Any]:
    """A ``Verdict`` message as the ``--json`` outputs give it: ``kind`` (its name), ``decision`` and ``detail``."""
    from arena.v1 import referee_pb2 as pb

    return {"kind": pb.VerdictKind.Name(v.kind), "decision": v.decision_index, "detail": v.detail}


def verdict_text(kind: str) -> str:
    """A verdict's kind, as its JSON names it, in words; a kind not known here (a newer referee's) as it is named."""
    return verdict_words().get(kind, kind)


def kind_fields(game: str) -> Mapping[str, Mapping[str, str | None]]:
    """``KIND_FIELDS`` of ``game``: by a message's kind, its fields in other words, or None for those left out."""
    return KIND_FIELDS.get(game, NO_KIND_FIELDS)


def said_for_kind(value: Any, fields: Mapping[str, Mapping[str, str | None]]) -> Any:
    """``value`` (a message's JSON) with each message in it, at any depth, read for its ``kind`` (``kind_fields``): a
    field in other words (the key they replace), or left out."""
    if isinstance(value, list):
        return [said_for_kind(item, fields) for item in value]
    if not isinstance(value, dict) or not fields:
        return value
    kind = value.get("kind")
    told = fields.get(kind, {}) if isinstance(kind, str) else {}
    return {told.get(key) or key: said_for_kind(item, fields) for key, item in value.items() if key not in told or told[key]}


def flag_words(game: str) -> Mapping[str, tuple[str, str]]:
    """``FLAG_WORDS`` of ``game``: by ``kind.field``, what the flag says when true and when false."""
    return FLAG_WORDS.get(game, NO_FLAG_WORDS)


def empty_told(game: str) -> frozenset[str]:
    """``EMPTY_TOLD`` of ``game``: the ``kind.field`` lists of its messages that say "none" when empty."""
    return EMPTY_TOLD.get(game, frozenset())


def left_out(game: str) -> tuple[Mapping[str, Any], ...]:
    """``LEFT_OUT`` of ``game``: what its tables leave out, or say in words, and when."""
    return LEFT_OUT.get(game, ())


def read_for_view(value: Any, game: str, num_players: int, seat: object) -> Any:
    """``value`` (a state, or an event's JSON) with what ``left_out(game)`` leaves out left out and its unset fields in
    words, for a match of ``num_players`` seen by ``seat`` (a number, or "all"), in the phase ``value`` gives (an event
    gives none: a rule of ``phases`` leaves nothing out of it). As the viewer's ``readForView`` reads it."""
    rules = left_out(game)
    if not rules:
        return value
    phase = value.get("phase") if isinstance(value, dict) else None

    def walk(item: Any, under: str) -> Any:
        if isinstance(item, list):
            return [walk(x, under) for x in item]
        if not isinstance(item, dict):
            return item
        drop: set[str] = set()
        said: dict[str, str] = {}
        for rule in rules:
            if ("in" in rule and under not in rule["in"]) or ("players" in rule and num_players not in rule["players"]):
                continue
            if ("phases" in rule and phase not in rule["phases"]) or ("without" in rule and item.get(rule["without"]) is not None):
                continue
            if rule.get("own") and not (isinstance(seat, int) and item.get("seat") == seat):
                continue
            drop.update(rule.get("fields", ()))
            drop.update(k for k in rule.get("null", ()) if item.get(k) is None)
            said.update({k: w for k, w in rule.get("unset", {}).items() if item.get(k) is None})
        out = {k: walk(v, k) for k, v in item.items() if k not in drop}
        return {**out, **said}

    return walk(value, "")


def left_out_json(game: str) -> list[dict[str, Any]]:
    """``left_out(game)`` as the frames send it (lists for tuples)."""
    return [{k: (list(v) if isinstance(v, tuple) else dict(v) if isinstance(v, Mapping) else v) for k, v in rule.items()} for rule in left_out(game)]
