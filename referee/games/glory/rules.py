"""Glory: a shared deck, Land and Money, Generals and Soldiers, assistance for hire and assassins.

Numbered readings of the rules live in docs/games/glory.md; the comments below
cite them as (G-n).
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from types import ModuleType
from typing import Any, ClassVar

from arena.v1 import glory_pb2
from referee.core.cards import card_str, full_deck
from referee.core.game import Event, Game, GameSpec, OptionSpec, Result, broadcast, ranks_from_scores
from referee.games.glory import battles, choices
from referee.games.glory.table import START_HP, Table
from referee.games.glory.types import (
    ACTION_TYPES,
    Action,
    Assassinate,
    Assist,
    AssistChoice,
    AttackKind,
    AttackKing,
    BuyLand,
    CardTurnedOver,
    ConquerLand,
    Decision,
    DeclineAssist,
    Defend,
    DefendChoice,
    Discard,
    Discarded,
    FirstPlayerDraw,
    GameEnded,
    GloryReason,
    Heal,
    Healed,
    LandBought,
    MakeOffers,
    MoreAssassins,
    MoreAssassinsChoice,
    OfferChoice,
    PassTurn,
    Phase,
    RoundEnded,
    RoundEndReason,
    RoundStarted,
    StartRound,
    StartRoundChoice,
    Thwart,
    ThwartChoice,
    TurnChoice,
    TurnPassed,
    TurnStarted,
    View,
)
from referee.games.glory.values import Kind, by_kind, half_up, high_card_rank, is_assassin, is_fighter, total, value

SPEC = GameSpec(
    id="glory",
    name="Glory",
    player_counts=(2, 3, 4, 5, 6),
    summary="Buy and conquer Land, attack kings with hired help, assassinate: the most Glory Points after four rounds wins.",
    score="Glory Points",
    rules_file="glory.txt",
    rules_version=2,  # 2: a battle's or an assassination's damage is the HP actually lost (G-19, G-21)
    options=(
        OptionSpec("rounds", 4, "Rounds in the game (more are played while the lead is tied).", minimum=1, maximum=20),
        OptionSpec(
            "max_extra_rounds",
            10,
            "Safety cap on the extra rounds played to break a tie for the lead; after it the tied players share first place.",
            minimum=0,
            maximum=100,
        ),
    ),
)


class Glory(Game[Action]):
    spec = SPEC
    action_types = ACTION_TYPES
    proto_module: ClassVar[ModuleType] = glory_pb2

    def __init__(self, num_players: int, seed: int, options: dict[str, object] | None = None) -> None:
        super().__init__(num_players, seed, options)
        self.t = Table(num_players)
        self.round = 0
        self.first_player = 0
        self.next_first: int | None = None
        self.winners: tuple[int, ...] = ()
        deck = [c for d in range(num_players) for c in full_deck(d, jokers=True)]  # one deck per player (G-3)
        self.rng.shuffle(deck)
        self._opening = self.setup_first_round(deck)

    # --- rounds ---------------------------------------------------------------------

    def setup_first_round(self, deck: list[int]) -> list[Event]:
        """Round one from a deck whose last card is its top: high card goes first (G-4), then the deal."""
        self.t.deck = deck
        self.forget()
        first, events = self._high_card()
        return events + self._begin_round(first)

    def _high_card(self) -> tuple[int, list[Event]]:
        t = self.t
        contenders = list(range(self.num_players))
        events: list[Event] = []
        while len(contenders) > 1:
            if len(t.deck) < len(contenders):
                break  # the deck ran out: the lowest tied seat goes first (G-4)
            cards = [t.deck.pop() for _ in contenders]
            t.discard += cards
            events.append(broadcast(FirstPlayerDraw(tuple(contenders), tuple(cards))))
            best = max(high_card_rank(c) for c in cards)
            contenders = [s for s, c in zip(contenders, cards) if high_card_rank(c) == best]
        return contenders[0], events

    def _begin_round(self, first: int) -> list[Event]:
        self.round += 1
        self.first_player = first
        self.next_first = None
        events = [broadcast(RoundStarted(self.round, first, self.round > self.rounds))]
        if self.round > 1 and self.t.deck:
            card = self.t.deck.pop()  # the first player starts the discard pile (G-6)
            self.t.discard.append(card)
            events.append(broadcast(CardTurnedOver(first, card)))
        events += self.t.deal(first)
        return events + self._begin_turn(first)

    def _new_round(self) -> list[Event]:
        """Every card back into the deck, reshuffled; HP back to 50 (G-5, G-6, G-32)."""
        t = self.t
        cards = t.deck + t.discard
        for seat in range(self.num_players):
            cards += t.hands[seat] + t.domains[seat] + t.treasuries[seat]
            t.hands[seat], t.domains[seat], t.treasuries[seat] = [], [], []
        cards.sort()
        self.rng.shuffle(cards)
        t.deck, t.discard = cards, []
        t.hp = [START_HP] * self.num_players
        t.waiting = [False] * self.num_players
        t.fight = None
        t.last_battle = None
        assert self.next_first is not None
        return self._begin_round(self.next_first)

    @property
    def rounds(self) -> int:
        return int(self.options["rounds"])

    def _end_round(self, reason: RoundEndReason, eliminated: int | None = None) -> list[Event]:
        """Land scores for every king not eliminated (G-27); then the next round or the end (G-28)."""
        t = self.t
        land = tuple(0 if s == eliminated else t.land_value(s) for s in range(self.num_players))
        events = [t.award(s, land[s], GloryReason.LAND) for s in range(self.num_players) if land[s]]
        events.append(broadcast(RoundEnded(self.round, reason, eliminated, land, tuple(t.glory))))
        top = max(t.glory)
        leaders = tuple(s for s in range(self.num_players) if t.glory[s] == top)
        cap = self.rounds + int(self.options["max_extra_rounds"])
        if self.round >= self.rounds and (len(leaders) == 1 or self.round >= cap):
            t.phase = Phase.GAME_OVER
            self.winners = leaders
            events.append(broadcast(GameEnded(tuple(t.glory), leaders, len(leaders) > 1)))
            return events
        t.phase = Phase.ROUND_OVER
        self.next_first = self.next_first_player()
        return events

    def next_first_player(self) -> int:
        """Lowest GP; ties: the first tied seat going right from this round's first player (G-5)."""
        low = min(self.t.glory)
        for i in range(1, self.num_players + 1):
            seat = (self.first_player - i) % self.num_players
            if self.t.glory[seat] == low:
                return seat
        raise AssertionError("unreachable")

    # --- turns ----------------------------------------------------------------------

    def _begin_turn(self, seat: int) -> list[Event]:
        t = self.t
        t.turn = seat
        t.phase = Phase.TURN
        events = [broadcast(TurnStarted(seat))]
        if t.waiting[seat]:
            events += t.draw_to_seven(seat)  # a failed attacker draws back now (G-25)
        return events

    def _end_turn(self) -> list[Event]:
        if not self.t.deck:
            return self._end_round(RoundEndReason.DECK_EMPTY)  # (G-9)
        return self._begin_turn((self.t.turn + 1) % self.num_players)

    def _after_fight(self, events: list[Event]) -> list[Event]:
        t = self.t
        if t.fight is not None:
            return events
        result = t.last_battle
        assert result is not None
        if result.eliminated:
            return events + self._end_round(RoundEndReason.KING_ELIMINATED, result.defender)  # (G-26)
        return events + self._end_turn()

    # --- who acts and what they may do ----------------------------------------------

    def to_act(self) -> tuple[int, ...]:
        t = self.t
        phase = t.phase
        if phase == Phase.TURN:
            return (t.turn,)
        if phase == Phase.ROUND_OVER:
            assert self.next_first is not None
            return (self.next_first,)
        if phase == Phase.GAME_OVER:
            return ()
        fight = t.fight
        assert fight is not None
        if phase == Phase.OFFERS:
            return (battles.offers_turn(fight),)
        if phase == Phase.ASSIST:
            return (battles.next_assistant(fight),)
        if phase == Phase.MORE_ASSASSINS:
            return (fight.attacker,)
        return (fight.defender,)  # DEFEND, THWART

    def _decide(self, seat: int) -> Decision:
        if seat not in self.to_act():
            raise ValueError(f"seat {seat} has no decision now")
        t = self.t
        hand = t.hands[seat]
        if t.phase == Phase.TURN:
            others = t.others(seat)
            kinds, aces = by_kind(hand)
            return TurnChoice(
                hand=tuple(hand),
                lands=tuple(kinds[Kind.LAND]),
                treasury=tuple(t.treasuries[seat]),
                generals=tuple(kinds[Kind.GENERAL]),
                soldiers=tuple(kinds[Kind.SOLDIER]),
                assassins=tuple(kinds[Kind.ASSASSIN]),
                health=tuple(kinds[Kind.HEALTH]),
                aces=tuple(aces),
                king_targets=tuple(others),
                conquer_targets=tuple(s for s in others if t.domains[s]),
                can_pass=not hand,
            )
        if t.phase == Phase.ROUND_OVER:
            return StartRoundChoice(self.round + 1)
        fight = t.fight
        assert fight is not None
        fighters = tuple(c for c in hand if is_fighter(c))
        if t.phase == Phase.OFFERS:
            return OfferChoice(
                fight.attacker, fight.defender, tuple(t.domains[seat] + t.treasuries[seat]), tuple(fight.assistants)
            )
        if t.phase == Phase.ASSIST:
            return AssistChoice(fight.attacker, fight.defender, fighters, t.attack_points(fight), t.defence_points(fight))
        if t.phase == Phase.DEFEND:
            return DefendChoice(fight.kind, fight.attacker, fighters, t.attack_points(fight), t.defence_points(fight))
        assassins = tuple(c for c in hand if is_assassin(c))
        if t.phase == Phase.THWART:
            return ThwartChoice(fight.attacker, assassins, len(fight.presented))
        return MoreAssassinsChoice(fight.defender, assassins, fight.mini_round + 1)

    def legal_actions(self, seat: int) -> Iterator[Action]:
        return choices.legal_actions(self.decision(seat))

    def check(self, seat: int, action: Action) -> str | None:
        return choices.check(self.decision(seat), action)

    def least_count(self, seat: int) -> int:
        return choices.least_count(self.decision(seat))

    def random_action(self, seat: int, rng: random.Random) -> Action:
        return choices.random_action(self.decision(seat), rng)

    def default_action(self, seat: int) -> Action:
        """Passive and always legal (G-31)."""
        d = self.decision(seat)
        if isinstance(d, TurnChoice):
            if not d.hand:
                return PassTurn()
            return Discard((min(d.hand, key=lambda c: (value(c), c)),))
        if isinstance(d, OfferChoice):
            return MakeOffers(())
        if isinstance(d, AssistChoice):
            return DeclineAssist()
        if isinstance(d, DefendChoice):
            return Defend(())
        if isinstance(d, ThwartChoice):
            return Thwart(())
        if isinstance(d, MoreAssassinsChoice):
            return MoreAssassins(())
        return StartRound()

    # --- applying actions -------------------------------------------------------------

    def _apply(self, seat: int, action: Action) -> list[Event]:
        t = self.t
        if isinstance(action, StartRound):
            return self._new_round()
        if isinstance(action, MakeOffers):
            return battles.make_offers(t, seat, action.offers)
        if isinstance(action, Assist):
            return battles.assist(t, seat, action.seat, action.card_ids)
        if isinstance(action, DeclineAssist):
            return battles.assist(t, seat, None, ())
        if isinstance(action, Defend):
            return self._after_fight(battles.defend(t, seat, action.card_ids))
        if isinstance(action, Thwart):
            return self._after_fight(battles.thwart(t, seat, action.card_ids))
        if isinstance(action, MoreAssassins):
            return self._after_fight(battles.more_assassins(t, seat, action.card_ids))
        if isinstance(action, ConquerLand):
            return battles.declare(t, AttackKind.CONQUER_LAND, seat, action.target, action.card_ids, action.money_ids)
        if isinstance(action, AttackKing):
            return battles.declare(t, AttackKind.ATTACK_KING, seat, action.target, action.card_ids, action.money_ids)
        if isinstance(action, Assassinate):
            return battles.declare(t, AttackKind.ASSASSINATION, seat, action.target, action.card_ids, ())
        return self._simple_turn(seat, action) + t.draw_to_seven(seat) + self._end_turn()

    def _simple_turn(self, seat: int, action: Action) -> list[Event]:
        """Buy Land, Heal, Discard or pass; the draw-back follows (G-11, G-22, G-23, G-10)."""
        t = self.t
        hand = t.hands[seat]
        if isinstance(action, BuyLand):
            for c in action.land_ids:
                hand.remove(c)
                t.domains[seat].append(c)
            for c in action.money_ids:
                t.treasuries[seat].remove(c)
                t.discard.append(c)
            return [broadcast(LandBought(seat, action.land_ids, action.money_ids))]
        if isinstance(action, Heal):
            hand.remove(action.card_id)
            t.discard.append(action.card_id)
            t.hp[seat] = min(START_HP, t.hp[seat] + half_up(value(action.card_id)))
            return [broadcast(Healed(seat, action.card_id, t.hp[seat]))]
        if isinstance(action, Discard):
            for c in action.card_ids:
                hand.remove(c)
                t.discard.append(c)
            return [broadcast(Discarded(seat, action.card_ids))]
        assert isinstance(action, PassTurn)
        return [broadcast(TurnPassed(seat))]

    # --- what seats may know ------------------------------------------------------------

    def view(self, seat: int) -> View:
        t = self.t
        return View(
            seat=seat,
            num_players=self.num_players,
            round=self.round,
            rounds=self.rounds,
            extra_round=self.round > self.rounds,
            phase=t.phase,
            turn=t.turn,
            first_player=self.first_player,
            hand=tuple(t.hands[seat]),
            players=tuple(map(t.player, range(self.num_players))),
            deck_size=len(t.deck),
            discard=tuple(t.discard),
            battle=t.battle_state(),
            last_battle=t.last_battle,
            next_first_player=self.next_first,
        )

    def hidden_cards(self, seat: int) -> set[int]:
        """The deck and the other players' hands (G-30)."""
        hidden = set(self.t.deck)
        for other in range(self.num_players):
            if other != seat:
                hidden.update(self.t.hands[other])
        return hidden

    def result(self) -> Result:
        glory = list(self.t.glory)
        return Result(ranks_from_scores(glory), tuple(float(g) for g in glory))

    def full_state(self) -> dict[str, Any]:
        t = self.t

        def names(cards: Any) -> list[str]:
            return [card_str(c) for c in cards]

        fight, last = t.fight, t.last_battle
        return {
            "round": self.round,
            "rounds": self.rounds,  # as in a seat's view: the viewer tells "round 3 of 4", "extra round 1 (after 4)"
            "extra_round": self.round > self.rounds,
            "phase": t.phase.name,
            "turn": t.turn,
            "first_player": self.first_player,
            "next_first_player": self.next_first,
            "deck": names(reversed(t.deck)),
            "discard": names(t.discard),
            "fight": None
            if fight is None
            else {
                "kind": fight.kind.name,
                "attacker": fight.attacker,
                "defender": fight.defender,
                "attack_cards": names(fight.attack_cards),
                "mercenaries": names(fight.mercenaries),
                "attacker_offers": [{"seat": o.seat, "cards": names(o.card_ids)} for o in fight.attacker_offers],
                "defender_offers": [{"seat": o.seat, "cards": names(o.card_ids)} for o in fight.defender_offers],
                "assists": [{"seat": a.seat, "assisted": a.assisted, "cards": names(a.cards)} for a in fight.assists],
                "defence_cards": names(fight.defence_cards),
                "presented": names(fight.presented),
                # the points so far and the assassination's mini-round, as a seat's view gives them
                "attack_points": t.attack_points(fight),
                "defence_points": t.defence_points(fight),
                "mini_round": fight.mini_round,
            },
            # the attack resolved last this round, as a seat's view tells it
            "last_battle": None if last is None else {
                "kind": last.kind.name,
                "attacker": last.attacker,
                "defender": last.defender,
                "attack_points": last.attack_points,
                "defence_points": last.defence_points,
                "success": last.success,
                "damage": last.damage,
                "land_taken": None if last.land_taken is None else card_str(last.land_taken),
                "eliminated": last.eliminated,
                "attacker_assistants": list(last.attacker_assistants),
                "defender_assistants": list(last.defender_assistants),
            },
            "players": [
                {
                    "seat": s,
                    "hand": names(t.hands[s]),
                    "domain": names(t.domains[s]),
                    "treasury": names(t.treasuries[s]),
                    "hp": t.hp[s],
                    "glory": t.glory[s],
                    "land_value": t.land_value(s),  # as a seat's view gives them
                    "treasury_value": total(t.treasuries[s]),
                    "waiting": t.waiting[s],
                }
                for s in range(self.num_players)
            ],
            "winners": list(self.winners),
        }
