"""Land & Castle: armies battle over a row of face-down lands, helped by a castle and a general.

Numbered readings of the rules live in docs/games/land-and-castle.md; the
comments below cite them as (LC-n).
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterator, Mapping
from dataclasses import asdict
from functools import cache
from types import ModuleType
from typing import Any, ClassVar, Final

from arena.v1 import land_and_castle_pb2
from referee.core.cards import Rank, Suit, card_str, full_deck, rank_of, suit_of
from referee.core.game import Event, Game, GameSpec, OptionSpec, Result, broadcast, split
from referee.core.memory import TableMemory, everyone
from referee.core.records import LastBuilt
from referee.games.land_and_castle.types import (
    ACTION_TYPES,
    Action,
    Attack,
    AttackChoice,
    Attacked,
    Battle,
    BattleResolved,
    BattleSide,
    CardsDrawn,
    CardSwapped,
    CastleChoice,
    CastlePlaced,
    Capture,
    ClaimChoice,
    Control,
    Decision,
    Defend,
    DefendChoice,
    Defended,
    GameOver,
    GeneralChoice,
    GeneralPlaced,
    KnownCards,
    Land,
    LandCaptured,
    LandControlled,
    LandDealt,
    LandRevealed,
    Phase,
    PlaceCastle,
    PlaceGeneral,
    Player,
    SwapCard,
    TurnStarted,
    View,
    WinReason,
)

#: Bonus of a hearts castle in defence and of a clubs castle in attack (LC-10).
CASTLE_BONUS: Final = 3

# Every action names a card or two (and a land): each is made once and shared after (they are frozen), not at every listing.
_place_castle: Final = cache(PlaceCastle)
_place_general: Final = cache(PlaceGeneral)
_attack: Final = cache(Attack)
_swap: Final = cache(SwapCard)
_defend: Final = cache(Defend)
_control: Final = cache(Control)
_capture: Final = cache(Capture)

SPEC = GameSpec(
    id="land-and-castle",
    name="Land & Castle",
    player_counts=(2,),
    summary="Armies battle over a row of face-down lands, helped by a castle and a general; win by dominance, conversion or attrition.",
    score="lands owned at the end (the rank says who won)",
    rules_file="land-and-castle.txt",
    rules_version=2,  # 2: an attack that creates the conversion wins at once and leaves its army on the land (LC-23)
    options=(
        OptionSpec("lands_per_player", 3, "Land cards each player deals onto the board.", minimum=1, maximum=8),
        OptionSpec("hand_size", 4, "Cards in a hand (the hand limit).", minimum=1, maximum=8),
        OptionSpec("max_turns", 200, "Turns (battles) after which a stalled game is decided by lands owned.", minimum=1, maximum=10_000),
    ),
)


# --- card values and stacks (LC-5 to LC-10) ----------------------------------------------------


def is_face(card: int) -> bool:
    """Jacks, queens and kings are face cards; aces are not (LC-7)."""
    return rank_of(card) >= Rank.JACK


def army_value(card: int) -> int:
    """As an army: ace 1, two to ten face value, jack 0, queen and king 11 (LC-5)."""
    rank = int(rank_of(card))
    if rank == Rank.JACK:
        return 0
    return 11 if rank > Rank.JACK else rank


def land_value(card: int) -> int:
    """As land: ace 1, two to ten face value, jack, queen and king 0 (LC-5)."""
    rank = int(rank_of(card))
    return 0 if rank >= Rank.JACK else rank


def stacks(a: int, b: int) -> bool:
    """Two cards stack when neither is a face card and they share the rank or the suit (LC-6, LC-7)."""
    if is_face(a) or is_face(b):
        return False
    return rank_of(a) == rank_of(b) or suit_of(a) == suit_of(b)


def castle_suit(castle: int | None) -> Suit | None:
    """The suit whose bonus a castle gives: none for a face card (LC-10)."""
    if castle is None or is_face(castle):
        return None
    return suit_of(castle)


def battle_side(seat: int, army: int, land: int, general: int | None, castle: int | None, attacking: bool) -> BattleSide:
    """One side's total: army, the land if it stacks, the general (with the castle stacked on it) if it stacks (LC-6)."""
    value = army_value(army)
    land_bonus = land_value(land) if stacks(army, land) else 0
    general_bonus = 0
    if general is not None and stacks(general, army):
        general_bonus = int(rank_of(general))
        if castle is not None and stacks(castle, general):
            general_bonus += int(rank_of(castle))
    suit = castle_suit(castle)
    castle_bonus = CASTLE_BONUS if suit == (Suit.CLUBS if attacking else Suit.HEARTS) else 0
    total = value + land_bonus + general_bonus + castle_bonus
    return BattleSide(seat, army, value, land_bonus, general_bonus, castle_bonus, total)


def battle_winner(attacker: BattleSide, defender: BattleSide) -> tuple[int, bool]:
    """The winning seat and whether it was an undercut; ties go to the attacker (LC-9)."""
    undercut = suit_of(attacker.army) == suit_of(defender.army)
    if undercut:
        return (attacker.seat if attacker.total <= defender.total else defender.seat), True
    return (attacker.seat if attacker.total >= defender.total else defender.seat), False


def linked(a: int, b: int) -> bool:
    """Neighbouring lands agree when they share a suit or their land values differ by at most one (LC-17)."""
    return suit_of(a) == suit_of(b) or abs(land_value(a) - land_value(b)) <= 1


def converted(lands: list[int], face_up: list[bool]) -> bool:
    """Every land face up and every pair of neighbours in the row linked (LC-17)."""
    return all(face_up) and all(linked(a, b) for a, b in zip(lands, lands[1:]))


class LandAndCastle(Game[Action]):
    spec = SPEC
    action_types = ACTION_TYPES
    proto_module: ClassVar[ModuleType] = land_and_castle_pb2

    def __init__(self, num_players: int, seed: int, options: Mapping[str, object] | None = None) -> None:
        super().__init__(num_players, seed, options)
        self.hand_limit = int(self.options["hand_size"])
        self.max_turns = int(self.options["max_turns"])
        deck = full_deck()
        self.rng.shuffle(deck)  # one shuffle, split in halves: each player's own shuffled pile (LC-1)
        half = len(deck) // 2
        self.piles: list[deque[int]] = [deque(deck[:half]), deque(deck[half:])]
        self.hands: list[list[int]] = [[], []]
        self.castles: list[int | None] = [None, None]
        self.generals: list[int | None] = [None, None]
        self.discards: list[list[int]] = [[], []]
        self.swap_used = [False, False]
        self.lands: list[int] = []
        self.face_up: list[bool] = []
        self.owner: list[int | None] = []
        self.dealt_by: list[int] = []
        self.turn = 0
        self.attacker = 0  # seat 0 deals, places and attacks first (LC-2, LC-3, LC-4)
        self.phase = Phase.PHASE_CASTLE
        self.setup_seat = 0
        self.claimant = 0
        self.battle: Battle | None = None
        self.last_battle: Battle | None = None
        self.winner: int | None = None
        self.win_reason: WinReason | None = None
        # Cards each seat has been shown; piles are never reshuffled, so this only grows (LC-22).
        self.seen: list[set[int]] = [set(), set()]
        # Where the cards each seat has seen lie now in a pile or the other hand (LC-25).
        self.memory = TableMemory(2, KnownCards)
        self._players: LastBuilt[_PlayerKey, Player] = LastBuilt(2)
        self._land_rows: LastBuilt[_LandsKey, tuple[Land, ...]] = LastBuilt(1)
        events: list[Event] = []
        for position in range(2 * int(self.options["lands_per_player"])):
            seat = position % 2  # dealt in turns into a row, face down, unseen by all (LC-2)
            self.lands.append(self.piles[seat].popleft())
            self.memory.draw(seat, self.lands[-1:])
            self.face_up.append(False)
            self.owner.append(None)
            self.dealt_by.append(seat)
            events.append(broadcast(LandDealt(seat, position)))
        events += self._draw(0, self.hand_limit)
        self._opening = events

    @property
    def defender(self) -> int:
        return 1 - self.attacker

    # --- who acts and what they may do -------------------------------------------

    def to_act(self) -> tuple[int, ...]:
        if self.phase in (Phase.PHASE_CASTLE, Phase.PHASE_GENERAL):
            return (self.setup_seat,)
        if self.phase == Phase.PHASE_ATTACK:
            return (self.attacker,)
        if self.phase == Phase.PHASE_DEFEND:
            return (self.defender,)
        if self.phase == Phase.PHASE_CLAIM:
            return (self.claimant,)
        return ()

    def _swappable(self, seat: int) -> tuple[int, ...]:
        """A diamonds castle swaps once per turn, before its army, while the pile has a card (LC-11)."""
        if castle_suit(self.castles[seat]) != Suit.DIAMONDS or self.swap_used[seat] or not self.piles[seat]:
            return ()
        return tuple(self.hands[seat])

    def _claimable(self, seat: int) -> tuple[int, ...]:
        """The battled land, or with a spades castle any face-up land (LC-12)."""
        assert self.battle is not None
        if castle_suit(self.castles[seat]) == Suit.SPADES:
            return tuple(p for p in range(len(self.lands)) if self.face_up[p])
        return (self.battle.land,)

    def _decide(self, seat: int) -> Decision:
        if seat not in self.to_act():
            raise ValueError(f"seat {seat} has no decision now")
        hand = tuple(self.hands[seat])
        if self.phase == Phase.PHASE_CASTLE:
            return CastleChoice(hand)
        if self.phase == Phase.PHASE_GENERAL:
            return GeneralChoice(hand)
        if self.phase == Phase.PHASE_ATTACK:
            return AttackChoice(hand, tuple(range(len(self.lands))), self._swappable(seat))
        battle = self.battle
        assert battle is not None
        if self.phase == Phase.PHASE_DEFEND:
            return DefendChoice(hand, self._swappable(seat), battle.land, battle.attacker.army, battle.attacker.total)
        assert battle.defender is not None
        general = self.generals[seat]
        assert general is not None
        return ClaimChoice(self._claimable(seat), (battle.attacker.army, battle.defender.army, general), battle.land)

    def legal_actions(self, seat: int) -> Iterator[Action]:
        d = self.decision(seat)
        if isinstance(d, CastleChoice):
            return (_place_castle(c) for c in d.playable)
        if isinstance(d, GeneralChoice):
            return (_place_general(c) for c in d.playable)
        if isinstance(d, AttackChoice):
            attacks: list[Action] = [_attack(c, land) for c in d.playable for land in d.lands]
            return iter(attacks + [_swap(c) for c in d.swappable])
        if isinstance(d, DefendChoice):
            defends: list[Action] = [_defend(c) for c in d.playable]
            return iter(defends + [_swap(c) for c in d.swappable])
        claims: list[Action] = []
        for land in d.lands:
            claims.append(_control(land))
            claims += [_capture(land, c) for c in d.exchangeable]
        return iter(claims)

    def check(self, seat: int, action: Action) -> str | None:
        d = self.decision(seat)
        if isinstance(d, CastleChoice):
            if not isinstance(action, PlaceCastle):
                return "place your castle now"
            return None if action.card_id in d.playable else f"card {action.card_id} is not in your hand"
        if isinstance(d, GeneralChoice):
            if not isinstance(action, PlaceGeneral):
                return "place your general now"
            return None if action.card_id in d.playable else f"card {action.card_id} is not in your hand"
        if isinstance(d, (AttackChoice, DefendChoice)):
            if isinstance(action, SwapCard):
                if not d.swappable:
                    return "you may not swap a card now (a diamonds castle swaps once per turn, with cards left to draw)"
                return None if action.card_id in d.swappable else f"card {action.card_id} is not in your hand"
            if isinstance(d, AttackChoice):
                if not isinstance(action, Attack):
                    return "attack a land with an army card now"
                if action.land not in d.lands:
                    return f"there is no land {action.land}"
            elif not isinstance(action, Defend):
                return "defend with an army card now"
            return None if action.card_id in d.playable else f"card {action.card_id} is not in your hand"
        if not isinstance(action, (Control, Capture)):
            return "claim a land now: control or capture"
        if action.land not in d.lands:
            return f"land {action.land} may not be claimed"
        if isinstance(action, Capture) and action.card_id not in d.exchangeable:
            return f"card {action.card_id} may not be exchanged for the land"
        return None

    def default_action(self, seat: int) -> Action:
        """Castle and general: the first card in hand; never swap; the weakest army on the first land; control (LC-21)."""
        d = self.decision(seat)
        if isinstance(d, CastleChoice):
            return PlaceCastle(d.playable[0])
        if isinstance(d, GeneralChoice):
            return PlaceGeneral(d.playable[0])
        if isinstance(d, ClaimChoice):
            return Control(d.battle_land)
        weakest = min(d.playable, key=lambda c: (army_value(c), c))
        if isinstance(d, AttackChoice):
            return Attack(weakest, d.lands[0])
        return Defend(weakest)

    # --- applying actions ----------------------------------------------------------

    def _apply(self, seat: int, action: Action) -> list[Event]:
        if isinstance(action, PlaceCastle):
            return self._place_castle(seat, action.card_id)
        if isinstance(action, PlaceGeneral):
            return self._place_general(seat, action.card_id)
        if isinstance(action, SwapCard):
            return self._swap(seat, action.card_id)
        if isinstance(action, Attack):
            return self._attack(seat, action.card_id, action.land)
        if isinstance(action, Defend):
            return self._defend(seat, action.card_id)
        if isinstance(action, Control):
            return self._control(seat, action.land)
        return self._capture(seat, action.land, action.card_id)

    def _show_all(self, *cards: int) -> None:
        for seen in self.seen:
            seen.update(cards)

    def _draw(self, seat: int, count: int) -> list[Event]:
        """Draw up to ``count`` cards from the top of the pile; an empty pile gives nothing (LC-15)."""
        pile = self.piles[seat]
        drawn = [pile.popleft() for _ in range(min(count, len(pile)))]
        self.hands[seat].extend(drawn)
        self.seen[seat].update(drawn)
        self.memory.draw(seat, drawn)  # (LC-25)
        return split(seat, 2, CardsDrawn(seat, len(drawn), tuple(drawn)), CardsDrawn(seat, len(drawn), ()))

    def _play(self, seat: int, card: int) -> None:
        """``card`` leaves the hand face up: on the table, it is no longer a hand card anyone has to remember (LC-25)."""
        self.hands[seat].remove(card)
        self.memory.played(seat, card)
        self._show_all(card)

    def _place_castle(self, seat: int, card: int) -> list[Event]:
        self._play(seat, card)
        self.castles[seat] = card  # castles and generals are placed face up (LC-3)
        events = [broadcast(CastlePlaced(seat, card))] + self._draw(seat, 1)
        if seat == 0:
            self.setup_seat = 1
            return events + self._draw(1, self.hand_limit)
        self.phase = Phase.PHASE_GENERAL
        self.setup_seat = 0
        return events

    def _place_general(self, seat: int, card: int) -> list[Event]:
        self._play(seat, card)
        self.generals[seat] = card
        events = [broadcast(GeneralPlaced(seat, card))] + self._draw(seat, 1)
        if seat == 0:
            self.setup_seat = 1
            return events
        return events + self._start_turn()

    def _start_turn(self) -> list[Event]:
        self.turn += 1
        self.swap_used = [False, False]
        if self.battle is not None:
            self.last_battle = self.battle
        self.battle = None
        events = [broadcast(TurnStarted(self.turn, self.attacker))]
        if not self.hands[self.attacker]:
            # The attacker can neither play nor draw: attrition (LC-18).
            return events + self._finish(self.defender, WinReason.ATTRITION)
        self.phase = Phase.PHASE_ATTACK
        return events

    def _swap(self, seat: int, card: int) -> list[Event]:
        self.hands[seat].remove(card)
        self.memory.put(seat, len(self.piles[seat]), [card], 1 << seat)  # only its owner knows the card (LC-22)
        self.memory.forget_hand(seat)  # the opponent cannot tell which card went: he loses track of the hand (LC-25)
        self.piles[seat].append(card)
        self.swap_used[seat] = True
        events = split(seat, 2, CardSwapped(seat, card), CardSwapped(seat, None))
        return events + self._draw(seat, 1)

    def _side(self, seat: int, army: int, land: int, attacking: bool) -> BattleSide:
        return battle_side(seat, army, land, self.generals[seat], self.castles[seat], attacking)

    def _attack(self, seat: int, army: int, land: int) -> list[Event]:
        self._play(seat, army)  # armies are played face up (LC-8)
        events = [broadcast(Attacked(seat, land, army))]
        card = self.lands[land]
        # The army lies face up on the land from now on, even when the reveal below ends the game (LC-23).
        self.battle = Battle(land, card, self._side(seat, army, card, True), None, False, None)
        if not self.face_up[land]:
            self.face_up[land] = True  # turned face up as soon as it is attacked (LC-8)
            self._show_all(card)
            events.append(broadcast(LandRevealed(land, card)))
            if converted(self.lands, self.face_up):
                return events + self._finish(seat, WinReason.CONVERSION)  # the attacker's reveal completed the row (LC-23)
        if not self.hands[self.defender]:
            return events + self._finish(seat, WinReason.ATTRITION)  # the defender cannot answer (LC-18)
        self.phase = Phase.PHASE_DEFEND
        return events

    def _defend(self, seat: int, army: int) -> list[Event]:
        battle = self.battle
        assert battle is not None
        self._play(seat, army)
        defender = self._side(seat, army, battle.land_card, False)
        winner, undercut = battle_winner(battle.attacker, defender)
        self.battle = Battle(battle.land, battle.land_card, battle.attacker, defender, undercut, winner)
        self.claimant = winner
        self.phase = Phase.PHASE_CLAIM
        return [broadcast(Defended(seat, army)), broadcast(BattleResolved(self.battle))]

    def _armies(self) -> tuple[int, int]:
        assert self.battle is not None and self.battle.defender is not None
        return self.battle.attacker.army, self.battle.defender.army

    def _control(self, seat: int, land: int) -> list[Event]:
        armies = self._armies()
        self.owner[land] = seat
        # The attacker's army, then the defender's at the very bottom (LC-13), seen by both (LC-22).
        self.memory.put(seat, len(self.piles[seat]), list(armies), everyone(2))
        self.piles[seat].extend(armies)
        return [broadcast(LandControlled(seat, land, armies))] + self._after_claim(seat)

    def _capture(self, seat: int, land: int, card: int) -> list[Event]:
        armies = self._armies()
        old = self.lands[land]
        new_general: int | None = None
        if card == self.generals[seat]:
            self.generals[seat] = old  # the land card becomes the new general (LC-13)
            new_general = old
            discarded = armies
        else:
            other = armies[1] if card == armies[0] else armies[0]
            discarded = (old, other)
        self.lands[land] = card
        self.owner[land] = seat
        self.discards[seat].extend(discarded)
        return [broadcast(LandCaptured(seat, land, card, new_general, discarded))] + self._after_claim(seat)

    def _after_claim(self, seat: int) -> list[Event]:
        """A winning claim ends the game before the turn's draws (LC-27); otherwise the draws, then the turn limit or the next turn."""
        if all(o == seat for o in self.owner):
            return self._finish(seat, WinReason.DOMINANCE)  # (LC-16)
        if converted(self.lands, self.face_up):
            return self._finish(seat, WinReason.CONVERSION)  # (LC-17)
        events = self._draw(self.attacker, 1) + self._draw(self.defender, 1)  # (LC-15)
        if self.turn >= self.max_turns:
            owned = self.lands_owned()
            best = None if owned[0] == owned[1] else max((0, 1), key=lambda s: owned[s])
            return events + self._finish(best, WinReason.TURN_LIMIT)  # (LC-19)
        self.attacker = self.defender
        return events + self._start_turn()

    def _finish(self, winner: int | None, reason: WinReason) -> list[Event]:
        self.winner = winner
        self.win_reason = reason
        self.phase = Phase.PHASE_OVER
        return [broadcast(GameOver(winner, reason, tuple(self.lands_owned())))]

    # --- what seats may know -------------------------------------------------------

    def lands_owned(self) -> list[int]:
        return [sum(1 for o in self.owner if o == seat) for seat in (0, 1)]

    def _player(self, seat: int, owned: list[int]) -> Player:
        """What everyone sees of ``seat``; the record is built again only when something in it changed."""
        key = (
            len(self.piles[seat]), len(self.hands[seat]), self.castles[seat], self.generals[seat], tuple(self.discards[seat]),
            owned[seat], self.swap_used[seat],
        )
        return self._players.get(seat, key, _build_player)

    def _lands(self) -> tuple[Land, ...]:
        """The lands as everyone sees them (face-down cards hidden); built again only when one changed."""
        key = (tuple(self.lands), tuple(self.face_up), tuple(self.owner), tuple(self.dealt_by))
        return self._land_rows.get(0, key, _build_lands)

    def view(self, seat: int) -> View:
        owned = self.lands_owned()
        lands = self._lands()
        return View(
            seat=seat,
            turn=self.turn,
            phase=self.phase,
            attacker=self.attacker,
            defender=self.defender,
            hand=tuple(self.hands[seat]),
            lands=lands,
            players=(self._player(0, owned), self._player(1, owned)),
            battle=self.battle,
            last_battle=self.last_battle,
            hand_limit=self.hand_limit,
            max_turns=self.max_turns,
            winner=self.winner,
            win_reason=self.win_reason,
            known=self.memory.known(seat),
        )

    def hidden_cards(self, seat: int) -> set[int]:
        hidden: set[int] = set(self.piles[0]) | set(self.piles[1]) | set(self.hands[1 - seat])
        hidden.update(c for c, up in zip(self.lands, self.face_up) if not up)
        return hidden - self.seen[seat]

    def result(self) -> Result:
        owned = self.lands_owned()
        if self.winner is None:
            return Result((1, 1), (float(owned[0]), float(owned[1])))
        ranks = (1, 2) if self.winner == 0 else (2, 1)
        return Result(ranks, (float(owned[0]), float(owned[1])))

    def full_state(self) -> dict[str, Any]:
        def names(cards: Any) -> list[str]:
            return [card_str(c) for c in cards]

        def name(card: int | None) -> str | None:
            return None if card is None else card_str(card)

        owned = self.lands_owned()
        return {
            "turn": self.turn,
            "phase": self.phase.name,
            "attacker": self.attacker,
            "defender": self.defender,  # as a seat's view gives it, and the game's limits
            "hand_limit": self.hand_limit,
            "max_turns": self.max_turns,
            "lands": [
                {"card": card_str(c), "face_up": up, "owner": o, "dealt_by": d}
                for c, up, o, d in zip(self.lands, self.face_up, self.owner, self.dealt_by)
            ],
            # the battle under way, and the one resolved last, with each side's values as a seat's view gives them
            "battle": _battle_state(self.battle),
            "last_battle": _battle_state(self.last_battle),
            "players": [
                {
                    "seat": s,
                    "pile": names(self.piles[s]),
                    "hand": names(self.hands[s]),
                    "castle": name(self.castles[s]),
                    "general": name(self.generals[s]),
                    "discard": names(self.discards[s]),
                    "swap_used": self.swap_used[s],
                    "lands_owned": owned[s],  # as a seat's view gives it: the score
                }
                for s in (0, 1)
            ],
            "winner": self.winner,
            "win_reason": None if self.win_reason is None else self.win_reason.name,
        }


#: What a seat's public record is built from: draw pile and hand sizes, Castle, General, discard pile, Lands owned, swap used.
_PlayerKey = tuple[int, int, int | None, int | None, tuple[int, ...], int, bool]
#: What the row of Lands is built from: the cards, which are face up, their owners and who dealt each.
_LandsKey = tuple[tuple[int, ...], tuple[bool, ...], tuple[int | None, ...], tuple[int, ...]]


def _side_state(side: BattleSide | None) -> dict[str, Any] | None:
    """One side of a battle as the full state gives it: its army by name, the army's value, bonuses and total."""
    if side is None:
        return None
    return {**asdict(side), "army": card_str(side.army)}  # seat, army, army_value, the three bonuses, total


def _battle_state(battle: Battle | None) -> dict[str, Any] | None:
    """A battle as the full state gives it, with what a seat's view gives of it (LC-6, LC-9)."""
    if battle is None:
        return None
    return {
        "land": battle.land,
        "land_card": card_str(battle.land_card),
        "attacker": _side_state(battle.attacker),
        "defender": _side_state(battle.defender),
        "undercut": battle.undercut,
        "winner": battle.winner,
    }


def _build_player(seat: int, key: _PlayerKey) -> Player:
    piles, hand, castle, general, discard, owned, swap_used = key
    return Player(
        seat=seat, draw_pile_size=piles, hand_size=hand, castle=castle, general=general, discard=discard, lands_owned=owned,
        swap_used=swap_used,
    )


def _build_lands(_: int, key: _LandsKey) -> tuple[Land, ...]:
    cards, face_up, owner, dealt_by = key
    return tuple(Land(p, cards[p] if face_up[p] else None, face_up[p], owner[p], dealt_by[p]) for p in range(len(cards)))
