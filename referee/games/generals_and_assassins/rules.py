"""Generals & Assassins: a deck per player, generals and soldiers, assassins, land and money.

Numbered readings of the rules live in docs/games/generals-and-assassins.md;
the comments below cite them as (GA-n). Legal actions, checks and samplers
are derived from the decision alone in legal.py.
"""

from __future__ import annotations

import random
from collections import deque
from collections.abc import Iterator
from dataclasses import dataclass, field
from types import ModuleType
from typing import Any, ClassVar, Final

from arena.v1 import generals_and_assassins_pb2
from referee.core.cards import card_str, deck_of, full_deck
from referee.core.game import Event, Game, GameSpec, OptionSpec, Result, broadcast, ranks_from_scores, split
from referee.core.records import LastBuilt
from referee.games.generals_and_assassins import legal
from referee.games.generals_and_assassins.roles import (
    ASSASSIN,
    GENERAL,
    HEALTH,
    LAND,
    MONEY,
    SOLDIER,
    by_role,
    is_ace,
    is_fighter,
    of_role,
    total,
    value,
)
from referee.games.generals_and_assassins.types import (
    ACTION_TYPES,
    Action,
    AssassinChoice,
    AssassinDeclined,
    Assassinate,
    AssassinationDeclared,
    AssassinationResolved,
    AssassinPlayed,
    Assist,
    AssistChoice,
    AssistDeclined,
    AssistGiven,
    AssistPlay,
    Attack,
    AttackDeclared,
    AttackResolved,
    Battle,
    BattleKind,
    BuyLand,
    CardsDrawn,
    Decision,
    DefenceChoice,
    DefenceCommitted,
    Defend,
    Discard,
    Discarded,
    Heal,
    Healed,
    KingDefeated,
    LandBought,
    LandOffer,
    LandsOffered,
    LandTransferred,
    LastCardDrawn,
    NextRoundChoice,
    OfferChoice,
    OfferLands,
    Phase,
    PlayAssassin,
    Player,
    RoundEnded,
    RoundEndReason,
    RoundStarted,
    Side,
    StartRound,
    TurnChoice,
    TurnSkipped,
    TurnStarted,
    View,
)

HAND: Final = 5
MAX_HP: Final = 50
LAND_DP: Final = 2
ASSASSIN_DAMAGE: Final = 25

SPEC = GameSpec(
    id="generals-and-assassins",
    name="Generals & Assassins",
    player_counts=(2, 3, 4),
    summary="A deck per player: buy land with money, attack kings with generals and soldiers, assassins, one-card assists for land.",
    score="victory points, every round's summed",
    rules_file="generals-and-assassins.txt",
    rules_version=2,  # 2: an attack's or an assassination's damage is the HP actually lost (GA-10, GA-12)
    options=(
        OptionSpec("rounds", 8, "Rounds in the game (extra rounds follow while the lead is tied).", minimum=1, maximum=50),
        OptionSpec(
            "max_extra_rounds",
            8,
            "Safety cap on extra rounds played to break a tie for the lead; still tied after them, the leaders share first place.",
            minimum=0,
            maximum=100,
        ),
    ),
)


@dataclass
class Fight:
    """The attack or assassination under way."""

    kind: BattleKind
    attacker: int
    defender: int
    attacker_cards: list[int]
    defender_cards: list[int] = field(default_factory=list)
    offers: list[LandOffer] = field(default_factory=list)
    assists: list[AssistPlay] = field(default_factory=list)
    declined: list[int] = field(default_factory=list)


class GeneralsAndAssassins(Game[Action]):
    spec = SPEC
    action_types = ACTION_TYPES
    proto_module: ClassVar[ModuleType] = generals_and_assassins_pb2

    def __init__(self, num_players: int, seed: int, options: dict[str, object] | None = None) -> None:
        super().__init__(num_players, seed, options)
        n = num_players
        self.rounds = int(self.options["rounds"])
        self.max_extra_rounds = int(self.options["max_extra_rounds"])
        self.decks: list[list[int]] = [[] for _ in range(n)]  # the top of a deck is its end
        self.hands: list[list[int]] = [[] for _ in range(n)]
        self.lands: list[list[int]] = [[] for _ in range(n)]  # lands in front of each player
        self.discards: list[list[int]] = [[] for _ in range(n)]  # face up, by the deck the cards came from
        self.hp = [MAX_HP] * n
        self.vp = [0] * n
        self.round = 0
        self.first_player = self.rng.randrange(n)  # round 1: chosen at random (GA-4)
        self.turn_player = self.first_player
        self.phase = Phase.TURN
        self.acting: int | None = None
        self.final_turns: int | None = None  # turns left once a deck ran out (GA-17)
        self.last_card_drawn = False  # a deck ran out during the current turn
        self.fight: Fight | None = None
        self.steps: deque[tuple[Phase, int]] = deque()
        self.last_battle: Battle | None = None
        self.round_log: list[dict[str, Any]] = []
        self._players: LastBuilt[_PlayerKey, Player] = LastBuilt(n)
        self._opening = self._start_round()

    # --- who acts and what they may do -------------------------------------------

    def to_act(self) -> tuple[int, ...]:
        return () if self.acting is None else (self.acting,)

    def _decide(self, seat: int) -> Decision:
        if seat != self.acting:
            raise ValueError(f"seat {seat} has no decision now")
        if self.phase == Phase.ROUND_OVER:
            return NextRoundChoice(self.round + 1, seat)
        hand = tuple(sorted(self.hands[seat]))
        if self.phase == Phase.TURN:
            roles = by_role(hand)
            return TurnChoice(
                hand=hand,
                targets=self._others(seat),
                generals=roles[GENERAL],
                soldiers=roles[SOLDIER],
                assassins=roles[ASSASSIN],
                money=roles[MONEY],
                land=roles[LAND],
                health=roles[HEALTH],
                aces=tuple(c for c in hand if is_ace(c)),
                hp=self.hp[seat],
            )
        fight = self.fight
        assert fight is not None
        if self.phase == Phase.OFFER:
            side = Side.ATTACKER if seat == fight.attacker else Side.DEFENDER
            return OfferChoice(side, tuple(self.lands[seat]), self._bystanders(fight))
        fighters = tuple(c for c in hand if is_fighter(c))
        if self.phase == Phase.ASSIST:
            return AssistChoice(fighters, fight.attacker, fight.defender)
        if self.phase == Phase.DEFEND:
            return DefenceChoice(fighters, self._attack_points(fight), self._defence_points(fight))
        return AssassinChoice(of_role(hand, ASSASSIN), seat == fight.defender)

    def legal_actions(self, seat: int) -> Iterator[Action]:
        return legal.legal_actions(self.decision(seat))

    def check(self, seat: int, action: Action) -> str | None:
        return legal.check(self.decision(seat), action)

    def random_action(self, seat: int, rng: random.Random) -> Action:
        return legal.random_action(self.decision(seat), rng)

    def default_action(self, seat: int) -> Action:
        return legal.default_action(self.decision(seat))

    def _others(self, seat: int) -> tuple[int, ...]:
        return tuple(s for s in range(self.num_players) if s != seat)

    def _bystanders(self, fight: Fight) -> tuple[int, ...]:
        """Players who are neither attacker nor defender, clockwise from the attacker (GA-7)."""
        n = self.num_players
        seats = ((fight.attacker + k) % n for k in range(1, n))
        return tuple(s for s in seats if s != fight.defender)

    # --- applying actions ----------------------------------------------------------

    def _apply(self, seat: int, action: Action) -> list[Event]:
        if isinstance(action, Attack):
            return self._declare_attack(seat, action)
        if isinstance(action, Assassinate):
            return self._declare_assassination(seat, action)
        if isinstance(action, BuyLand):
            self._take(seat, action.money_ids + action.land_ids)
            self._discard(action.money_ids)
            self.lands[seat].extend(action.land_ids)
            return [broadcast(LandBought(seat, tuple(action.money_ids), tuple(action.land_ids)))] + self._end_turn()
        if isinstance(action, Heal):
            self._take(seat, (action.card_id,))
            self._discard((action.card_id,))
            before = self.hp[seat]
            self.hp[seat] = min(MAX_HP, before + value(action.card_id))  # excess is lost (GA-14)
            return [broadcast(Healed(seat, action.card_id, self.hp[seat] - before, self.hp[seat]))] + self._end_turn()
        if isinstance(action, Discard):
            self._take(seat, action.card_ids)
            self._discard(action.card_ids)
            return [broadcast(Discarded(seat, tuple(action.card_ids)))] + self._end_turn()
        if isinstance(action, OfferLands):
            return self._make_offers(seat, action)
        if isinstance(action, StartRound):
            return self._start_round()
        if isinstance(action, Defend):
            return self._defend(seat, action)
        if self.phase == Phase.ASSIST:
            return self._assist(seat, action)
        return self._assassin_step(seat, action)

    def _take(self, seat: int, cards: tuple[int, ...]) -> None:
        hand = self.hands[seat]
        for c in cards:
            hand.remove(c)

    def _discard(self, cards: tuple[int, ...] | list[int]) -> None:
        """Face up onto the discard pile of the deck each card came from (GA-11)."""
        for c in cards:
            self.discards[deck_of(c)].append(c)

    def _ask(self, phase: Phase, seat: int) -> None:
        self.phase = phase
        self.acting = seat

    # --- attacks -------------------------------------------------------------------

    def _declare_attack(self, seat: int, action: Attack) -> list[Event]:
        self._take(seat, action.card_ids)
        fight = Fight(BattleKind.ATTACK, seat, action.target, list(action.card_ids))
        self.fight = fight
        events = [broadcast(AttackDeclared(seat, action.target, tuple(action.card_ids), total(action.card_ids)))]
        bystanders = self._bystanders(fight)
        self.steps = deque()
        if bystanders:  # offers and assists need a third player (GA-6, GA-26)
            for side in (fight.attacker, fight.defender):
                if self.lands[side]:
                    self.steps.append((Phase.OFFER, side))
            self.steps.extend((Phase.ASSIST, s) for s in bystanders)
        self.steps.append((Phase.DEFEND, fight.defender))  # the defender answers last (GA-9)
        return events + self._next_step()

    def _next_step(self) -> list[Event]:
        phase, seat = self.steps.popleft()
        self._ask(phase, seat)
        return []

    def _make_offers(self, seat: int, action: OfferLands) -> list[Event]:
        fight = self.fight
        assert fight is not None
        offers = tuple(LandOffer(seat, o.seat, tuple(o.land_ids)) for o in sorted(action.offers, key=lambda o: o.seat))
        fight.offers.extend(offers)
        return [broadcast(LandsOffered(seat, offers))] + self._next_step()

    def _assist(self, seat: int, action: Action) -> list[Event]:
        fight = self.fight
        assert fight is not None
        if not isinstance(action, Assist):
            fight.declined.append(seat)
            return [broadcast(AssistDeclined(seat))] + self._next_step()
        self._take(seat, (action.card_id,))
        side = Side(action.side)
        fight.assists.append(AssistPlay(seat, side, action.card_id))
        events = [broadcast(AssistGiven(seat, side, action.card_id))]
        giver = fight.attacker if side == Side.ATTACKER else fight.defender
        for offer in fight.offers:
            if offer.from_seat == giver and offer.to_seat == seat:
                # The promised lands change hands at once, before the attack is resolved (GA-8).
                for land in offer.lands:
                    self.lands[giver].remove(land)
                self.lands[seat].extend(offer.lands)
                events.append(broadcast(LandTransferred(giver, seat, offer.lands)))
        return events + self._next_step()

    def _defend(self, seat: int, action: Defend) -> list[Event]:
        fight = self.fight
        assert fight is not None
        self._take(seat, action.card_ids)
        fight.defender_cards.extend(action.card_ids)
        events = [broadcast(DefenceCommitted(seat, tuple(action.card_ids)))]
        return events + self._resolve_attack(fight)

    def _attack_points(self, fight: Fight) -> int:
        if fight.kind != BattleKind.ATTACK:
            return 0
        return total(fight.attacker_cards) + sum(value(a.card) for a in fight.assists if a.side == Side.ATTACKER)

    def _defence_points(self, fight: Fight) -> int:
        if fight.kind != BattleKind.ATTACK:
            return 0
        helped = sum(value(a.card) for a in fight.assists if a.side == Side.DEFENDER)
        return total(fight.defender_cards) + helped + LAND_DP * len(self.lands[fight.defender])  # GA-10

    def _resolve_attack(self, fight: Fight) -> list[Event]:
        ap, dp = self._attack_points(fight), self._defence_points(fight)
        defender = fight.defender
        damage = self._wound(defender, max(0, ap - dp))
        events = [broadcast(AttackResolved(fight.attacker, defender, ap, dp, damage, self.hp[defender]))]
        self._discard(fight.attacker_cards + fight.defender_cards + [a.card for a in fight.assists])
        return events + self._after_fight(fight, damage)

    def _wound(self, seat: int, blow: int) -> int:
        """Take ``blow`` HP from ``seat``, stopping at 0 (GA-10, GA-12); returns the HP actually lost, which events report."""
        lost = min(blow, self.hp[seat])
        self.hp[seat] -= lost
        return lost

    def _after_fight(self, fight: Fight, damage: int) -> list[Event]:
        self.last_battle = self._battle(fight, resolved=True, damage=damage)
        self.fight = None
        if self.hp[fight.defender] == 0:
            # The round ends at once; the king was defeated by the player whose attack it was (GA-19).
            events = [broadcast(KingDefeated(fight.defender, fight.attacker))]
            return events + self._end_round(RoundEndReason.KING_DEFEATED, (fight.defender, fight.attacker))
        return self._end_turn()

    # --- assassinations (GA-12) ----------------------------------------------------

    def _declare_assassination(self, seat: int, action: Assassinate) -> list[Event]:
        self._take(seat, (action.card_id,))
        self.fight = Fight(BattleKind.ASSASSINATION, seat, action.target, [action.card_id])
        self._ask(Phase.ASSASSIN, action.target)
        return [broadcast(AssassinationDeclared(seat, action.target, action.card_id))]

    def _assassin_step(self, seat: int, action: Action) -> list[Event]:
        fight = self.fight
        assert fight is not None
        blocking = seat == fight.defender
        if isinstance(action, PlayAssassin):
            self._take(seat, (action.card_id,))
            (fight.defender_cards if blocking else fight.attacker_cards).append(action.card_id)
            events = [broadcast(AssassinPlayed(seat, action.card_id, blocking))]
            if not blocking:
                self._ask(Phase.ASSASSIN, fight.defender)
                return events
            if len(fight.attacker_cards) == 1:  # the first assassin was stopped: one more try is allowed
                self._ask(Phase.ASSASSIN, fight.attacker)
                return events
            return events + self._resolve_assassination(fight, success=False)
        events = [broadcast(AssassinDeclined(seat, blocking))]
        return events + self._resolve_assassination(fight, success=blocking)

    def _resolve_assassination(self, fight: Fight, success: bool) -> list[Event]:
        defender = fight.defender
        damage = self._wound(defender, ASSASSIN_DAMAGE if success else 0)
        self._discard(fight.attacker_cards + fight.defender_cards)
        events = [broadcast(AssassinationResolved(fight.attacker, defender, success, damage, self.hp[defender]))]
        return events + self._after_fight(fight, damage)

    # --- turns and drawing ---------------------------------------------------------

    def _draw_up(self, seat: int) -> list[Event]:
        """Draw back up to five from the seat's own deck, as far as it goes (GA-16)."""
        deck, hand = self.decks[seat], self.hands[seat]
        count = min(HAND - len(hand), len(deck))
        if count <= 0:
            return []
        drawn = [deck.pop() for _ in range(count)]
        hand.extend(drawn)
        events = split(seat, self.num_players, CardsDrawn(seat, count, tuple(drawn)), CardsDrawn(seat, count, ()))
        if not deck and self.final_turns is None and not self.last_card_drawn:
            self.last_card_drawn = True  # GA-17
            events.append(broadcast(LastCardDrawn(seat, self.num_players)))
        return events

    def _end_turn(self) -> list[Event]:
        n = self.num_players
        events: list[Event] = []
        for k in range(n):  # everyone short of five draws, the turn player first, then clockwise
            events += self._draw_up((self.turn_player + k) % n)
        if self.final_turns is not None:
            self.final_turns -= 1
        elif self.last_card_drawn:
            self.final_turns = n  # every player, the one who drew the last card included, gets one more turn
        if self.final_turns == 0:
            return events + self._end_round(RoundEndReason.LAST_CARD, None)
        return events + self._begin_turn((self.turn_player + 1) % n)

    def _begin_turn(self, seat: int) -> list[Event]:
        self.turn_player = seat
        self.acting = None
        events = [broadcast(TurnStarted(seat, self.final_turns))]
        if not self.hands[seat]:  # nothing to play: the turn passes (GA-18)
            return events + [broadcast(TurnSkipped(seat))] + self._end_turn()
        self._ask(Phase.TURN, seat)
        return events

    # --- rounds --------------------------------------------------------------------

    def _start_round(self) -> list[Event]:
        n = self.num_players
        self.round += 1
        if self.round > 1:
            self.first_player = self._next_first_player()
        self.phase = Phase.TURN
        # Every card is back in the deck it came from; each deck is shuffled (GA-1, GA-21).
        for seat in range(n):
            deck = full_deck(seat, jokers=True)
            self.rng.shuffle(deck)
            self.decks[seat] = deck
            self.hands[seat] = []
            self.lands[seat] = []
            self.discards[seat] = []
        self.hp = [MAX_HP] * n
        self.final_turns = None
        self.last_card_drawn = False
        self.fight = None
        self.last_battle = None
        events = [broadcast(RoundStarted(self.round, self.first_player))]
        for k in range(n):
            events += self._draw_up((self.first_player + k) % n)
        return events + self._begin_turn(self.first_player)

    def _next_first_player(self) -> int:
        """Lowest total VP; a tie goes to the tied player first clockwise after the last first player (GA-4)."""
        n = self.num_players
        low = min(self.vp)
        order = [(self.first_player + k) % n for k in range(1, n + 1)]
        return next(s for s in order if self.vp[s] == low)

    def _end_round(self, reason: RoundEndReason, defeat: tuple[int, int] | None) -> list[Event]:
        n = self.num_players
        land_values = [total(self.lands[s]) for s in range(n)]
        awarded = list(land_values)
        if defeat is not None:  # the fallen king's round VP go to the player who defeated him (GA-20)
            fallen, by = defeat
            awarded[by] += land_values[fallen]
            awarded[fallen] = 0
        for s in range(n):
            self.vp[s] += awarded[s]
        over = self._game_over()
        self.round_log.append({"round": self.round, "reason": reason.name, "land_values": land_values, "awarded": awarded})
        events = [broadcast(RoundEnded(self.round, reason, tuple(land_values), tuple(awarded), tuple(self.vp), over))]
        if over:
            self.phase = Phase.OVER
            self.acting = None
            return events
        # The round's cards stay where they lie until its next first player starts the next round (GA-27).
        self._ask(Phase.ROUND_OVER, self._next_first_player())
        return events

    def _game_over(self) -> bool:
        """After the last round, extra rounds while the lead is tied, up to the safety cap (GA-22)."""
        if self.round < self.rounds:
            return False
        top = max(self.vp)
        leaders = sum(1 for v in self.vp if v == top)
        return leaders == 1 or self.round >= self.rounds + self.max_extra_rounds

    # --- what seats may know -------------------------------------------------------

    def _battle(self, fight: Fight, resolved: bool, damage: int) -> Battle:
        return Battle(
            kind=fight.kind,
            attacker=fight.attacker,
            defender=fight.defender,
            attacker_cards=tuple(fight.attacker_cards),
            defender_cards=tuple(fight.defender_cards),
            offers=tuple(fight.offers),
            assists=tuple(fight.assists),
            declined=tuple(fight.declined),
            attack_points=self._attack_points(fight),
            defence_points=self._defence_points(fight),
            resolved=resolved,
            damage=damage,
        )

    def _player(self, seat: int) -> Player:
        """What everyone sees of ``seat``; the record is built again only when something in it changed."""
        key = (
            self.hp[seat], self.vp[seat], len(self.hands[seat]), len(self.decks[seat]),
            tuple(self.lands[seat]), tuple(self.discards[seat]),
        )
        return self._players.get(seat, key, _build_player)

    def view(self, seat: int) -> View:
        return View(
            seat=seat,
            num_players=self.num_players,
            round=self.round,
            rounds=self.rounds,
            phase=self.phase,
            turn_player=self.turn_player,
            first_player=self.first_player,
            acting=self.acting,
            final_turns_left=self.final_turns,
            hand=tuple(sorted(self.hands[seat])),
            players=tuple(map(self._player, range(self.num_players))),
            battle=None if self.fight is None else self._battle(self.fight, resolved=False, damage=0),
            last_battle=self.last_battle,
        )

    def hidden_cards(self, seat: int) -> set[int]:
        """Cards in any deck and in other players' hands; everything else lies face up (GA-24)."""
        hidden: set[int] = set()
        for other in range(self.num_players):
            hidden.update(self.decks[other])
            if other != seat:
                hidden.update(self.hands[other])
        return hidden

    def result(self) -> Result:
        return Result(ranks_from_scores(list(self.vp)), tuple(float(v) for v in self.vp))  # GA-23

    def full_state(self) -> dict[str, Any]:
        def names(cards: Any) -> list[str]:
            return [card_str(c) for c in cards]

        fight, last = self.fight, self.last_battle
        return {
            "round": self.round,
            "rounds": self.rounds,
            "phase": self.phase.name,
            "turn_player": self.turn_player,
            "first_player": self.first_player,
            "acting": self.acting,
            "final_turns_left": self.final_turns,
            "fight": None
            if fight is None
            else {
                "kind": fight.kind.name,
                "attacker": fight.attacker,
                "defender": fight.defender,
                "attacker_cards": names(fight.attacker_cards),
                "defender_cards": names(fight.defender_cards),
                "offers": [{"from_seat": o.from_seat, "to_seat": o.to_seat, "lands": names(o.lands)} for o in fight.offers],
                "assists": [{"seat": a.seat, "side": a.side.name, "card": card_str(a.card)} for a in fight.assists],
                "declined": list(fight.declined),
                # the points so far, as a seat's view gives them
                "attack_points": self._attack_points(fight),
                "defence_points": self._defence_points(fight),
            },
            # the battle resolved last this round, as a seat's view tells it
            "last_battle": None if last is None else {
                "kind": last.kind.name,
                "attacker": last.attacker,
                "defender": last.defender,
                "attacker_cards": names(last.attacker_cards),
                "defender_cards": names(last.defender_cards),
                "declined": list(last.declined),
                "attack_points": last.attack_points,
                "defence_points": last.defence_points,
                "damage": last.damage,
            },
            "rounds_played": list(self.round_log),
            "players": [
                {
                    "seat": s,
                    "hp": self.hp[s],
                    "vp": self.vp[s],
                    "land_value": total(self.lands[s]),  # as a seat's view gives it: the round's VP to come
                    "deck": names(self.decks[s]),
                    "hand": names(self.hands[s]),
                    "lands": names(self.lands[s]),
                    "discard": names(self.discards[s]),
                }
                for s in range(self.num_players)
            ],
        }


#: What a seat's public record is built from: HP, VP, hand and deck sizes, Lands, discard pile.
_PlayerKey = tuple[int, int, int, int, tuple[int, ...], tuple[int, ...]]


def _build_player(seat: int, key: _PlayerKey) -> Player:
    hp, vp, hand_size, deck_size, lands, discard = key
    return Player(
        seat=seat, hp=hp, vp=vp, land_value=total(lands), hand_size=hand_size, deck_size=deck_size, lands=lands, discard=discard
    )
