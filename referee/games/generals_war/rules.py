"""General's War: squads of face-down cards, generals (aces), conquest and defeat points.

Numbered readings of the rules live in docs/games/generals-war.md; the
comments below cite them as (GW-n).
"""

from __future__ import annotations

import random
from collections import deque
from collections.abc import Iterator
from math import comb
from types import ModuleType
from typing import Any, ClassVar, Final

from arena.v1 import generals_war_pb2
from referee.core.cards import CARDS_PER_DECK, SUIT_ORDER, Rank, Suit, card_str, rank_of, suited_cards
from referee.core.game import (
    Event,
    Game,
    GameSpec,
    OptionSpec,
    Result,
    broadcast,
    card_subsets,
    choose_cards_reason,
    ranks_from_scores,
    split,
)
from referee.core.memory import TableMemory, everyone
from referee.core.records import LastBuilt
from referee.games.generals_war.types import (
    ACTION_TYPES,
    Action,
    Battle,
    BattleResolved,
    CardsDrawn,
    ChooseTarget,
    Decision,
    EliminationReason,
    GameEnded,
    GameEndReason,
    GeneralsRevealed,
    KnownCards,
    Phase,
    Player,
    PlayerEliminated,
    PlaySquad,
    RevealChoice,
    RevealGenerals,
    RoundEnded,
    RoundStarted,
    SquadChoice,
    SquadPlaced,
    TargetChoice,
    TargetChosen,
    View,
)

HAND: Final = 5
MAX_SQUAD: Final = 3

SPEC = GameSpec(
    id="generals-war",
    name="General's War",
    player_counts=(2, 4),
    summary="War with squads of up to three face-down cards, aces as generals, conquest and defeat points.",
    score="with 2 players, conquest points (the rank says who won); with 4, the opponents a seat outlasted",
    rules_file="generals-war.txt",
    rules_version=3,  # 3: every ending tells it (GW-21); 2: every fighter who drew is asked which aces to reveal, not only one who drew an ace
    options=(
        OptionSpec("conquest_points", 7, "Conquest points that win a two-player game.", minimum=1, maximum=100),
        OptionSpec("defeat_points", 3, "Defeat points that eliminate a player in a four-player game.", minimum=1, maximum=100),
    ),
)


def power(cards: tuple[int, ...] | list[int]) -> int:
    """Ace 1, two to ten at face value, jack 11, queen 12, king 13: the rank number."""
    return sum(int(rank_of(c)) for c in cards)


#: Whether each card of a deck is an ace (a general), by id modulo the deck: a lookup instead of an enum comparison.
_IS_GENERAL: Final = tuple(rank_of(c) == Rank.ACE for c in range(CARDS_PER_DECK))


#: What a seat's public record is built from (every field but the seat and its suits, which never change).
_PlayerKey = tuple[int, int, tuple[int, ...], tuple[int, ...], tuple[int, ...], int, int, int, bool, int]


def is_general(card: int) -> bool:
    return _IS_GENERAL[card % CARDS_PER_DECK]


class GeneralsWar(Game[Action]):
    spec = SPEC
    action_types = ACTION_TYPES
    proto_module: ClassVar[ModuleType] = generals_war_pb2

    def __init__(self, num_players: int, seed: int, options: dict[str, object] | None = None) -> None:
        super().__init__(num_players, seed, options)
        n = num_players
        if n == 2:
            self.suits: list[tuple[Suit, ...]] = [(Suit.CLUBS, Suit.SPADES), (Suit.DIAMONDS, Suit.HEARTS)]
        else:
            self.suits = [(s,) for s in SUIT_ORDER]
        self.decks: list[deque[int]] = []
        for seat in range(n):
            cards = suited_cards(self.suits[seat])
            self.rng.shuffle(cards)
            self.decks.append(deque(cards))
        self.hands: list[list[int]] = [[] for _ in range(n)]
        self.dead: list[list[int]] = [[] for _ in range(n)]
        self.conquest: list[list[int]] = [[] for _ in range(n)]
        self.squads: list[list[int]] = [[] for _ in range(n)]
        self.revealed: list[list[int]] = [[] for _ in range(n)]
        self.conquest_points = [0] * n
        self.defeat_points = [0] * n
        self.eliminated = [False] * n
        self.eliminations: list[list[int]] = []  # groups of seats, in the order they went out
        self._players: LastBuilt[_PlayerKey, Player] = LastBuilt(n)
        self.round = 0
        self.attacker = 0  # the dealer attacks first (GW-1)
        self.defender: int | None = None
        self.phase = Phase.REVEAL
        self.revealable: dict[int, tuple[int, ...]] = {}
        self.pending_reveals: dict[int, tuple[int, ...]] = {}
        self.last_battle: Battle | None = None
        self.winners: list[int] = []
        # Cards each seat has been shown; decks are shuffled only once, so this only grows.
        self.seen: list[set[int]] = [set() for _ in range(n)]
        # Where the cards each seat has seen lie now in a deck or another hand (GW-17).
        self.memory = TableMemory(n, KnownCards)
        self._opening = self._start_round()

    # --- who acts and what they may do -------------------------------------------

    def to_act(self) -> tuple[int, ...]:
        if self.phase == Phase.REVEAL:
            return tuple(s for s in sorted(self.revealable) if s not in self.pending_reveals)
        if self.phase in (Phase.CHOOSE_TARGET, Phase.ATTACK):
            return (self.attacker,)
        if self.phase == Phase.DEFEND:
            assert self.defender is not None
            return (self.defender,)
        return ()

    def _decide(self, seat: int) -> Decision:
        if seat not in self.to_act():
            raise ValueError(f"seat {seat} has no decision now")
        if self.phase == Phase.REVEAL:
            return RevealChoice(self.revealable[seat])
        if self.phase == Phase.CHOOSE_TARGET:
            return TargetChoice(self._targets())
        hand = tuple(self.hands[seat])
        attacking = self.phase == Phase.ATTACK
        opposing = 0 if attacking else len(self.squads[self.attacker])
        return SquadChoice(hand, 1, min(MAX_SQUAD, len(hand)), attacking, opposing)

    def legal_actions(self, seat: int) -> Iterator[Action]:
        d = self.decision(seat)
        if isinstance(d, RevealChoice):
            return (RevealGenerals(ids) for ids in card_subsets(d.revealable, 0, len(d.revealable)))
        if isinstance(d, TargetChoice):
            return (ChooseTarget(t) for t in d.targets)
        return (PlaySquad(ids) for ids in card_subsets(d.playable, d.min_cards, d.max_cards))

    def least_count(self, seat: int) -> int:
        """Exact: how many card sets the decision allows."""
        d = self.decision(seat)
        if isinstance(d, RevealChoice):
            return 1 << len(d.revealable)
        if isinstance(d, TargetChoice):
            return len(d.targets)
        return sum(comb(len(d.playable), k) for k in range(d.min_cards, d.max_cards + 1))

    def random_action(self, seat: int, rng: random.Random) -> Action:
        """Uniform over the legal actions, as choosing from the full list would be, without listing them."""
        d = self.decision(seat)
        if isinstance(d, RevealChoice):
            return RevealGenerals(tuple(c for c in sorted(d.revealable) if rng.random() < 0.5))
        if isinstance(d, TargetChoice):
            return ChooseTarget(rng.choice(d.targets))
        sizes = range(d.min_cards, d.max_cards + 1)
        size = rng.choices(sizes, weights=[comb(len(d.playable), k) for k in sizes])[0]
        return PlaySquad(tuple(sorted(rng.sample(d.playable, size))))

    def check(self, seat: int, action: Action) -> str | None:
        d = self.decision(seat)
        if isinstance(d, RevealChoice):
            if not isinstance(action, RevealGenerals):
                return "reveal generals (possibly none) now"
            return choose_cards_reason(action.card_ids, d.revealable, 0, len(d.revealable))
        if isinstance(d, TargetChoice):
            if not isinstance(action, ChooseTarget):
                return "choose the seat to attack now"
            return None if action.target in d.targets else f"seat {action.target} may not be attacked"
        if not isinstance(action, PlaySquad):
            return "place a squad now"
        return choose_cards_reason(action.card_ids, d.playable, d.min_cards, d.max_cards)

    def default_action(self, seat: int) -> Action:
        d = self.decision(seat)
        if isinstance(d, RevealChoice):
            return RevealGenerals(())
        if isinstance(d, TargetChoice):
            return ChooseTarget(d.targets[0])
        weakest = min(d.playable, key=lambda c: (int(rank_of(c)), c))
        return PlaySquad((weakest,))

    # --- applying actions ----------------------------------------------------------

    def _apply(self, seat: int, action: Action) -> list[Event]:
        if isinstance(action, RevealGenerals):
            self.pending_reveals[seat] = tuple(action.card_ids)
            return self._resolve_reveals() if not self.to_act() else []
        if isinstance(action, ChooseTarget):
            return self._choose_target(action.target)
        return self._place_squad(seat, action.card_ids)

    def _start_round(self) -> list[Event]:
        self.round += 1
        self.last_battle = None
        self.defender = None
        events = [broadcast(RoundStarted(self.round, self.attacker))]
        if self.num_players == 2:
            self.defender = 1 - self.attacker
        elif len(self._targets()) == 1:  # only one opponent left: no choice to make (GW-9)
            self.defender = self._targets()[0]
            events.append(broadcast(TargetChosen(self.attacker, self.defender)))
        else:
            self.phase = Phase.CHOOSE_TARGET
            return events
        return events + self._deal()

    def _targets(self) -> tuple[int, ...]:
        return tuple(s for s in range(self.num_players) if s != self.attacker and not self.eliminated[s])

    def _choose_target(self, target: int) -> list[Event]:
        self.defender = target
        return [broadcast(TargetChosen(self.attacker, target))] + self._deal()

    def _participants(self) -> tuple[int, int]:
        assert self.defender is not None
        return (self.attacker, self.defender)

    def _draw(self, seat: int, count: int) -> tuple[list[int], list[Event]]:
        deck = self.decks[seat]
        drawn = [deck.popleft() for _ in range(min(count, len(deck)))]
        self.hands[seat].extend(drawn)
        self.seen[seat].update(drawn)
        self.memory.draw(seat, drawn)  # (GW-17)
        mine = CardsDrawn(seat, len(drawn), tuple(drawn))
        theirs = CardsDrawn(seat, len(drawn), ())
        return drawn, split(seat, self.num_players, mine, theirs)

    def _deal(self) -> list[Event]:
        events: list[Event] = []
        self.revealable = {}
        self.pending_reveals = {}
        for seat in self._participants():
            drawn, drawn_events = self._draw(seat, HAND)
            events += drawn_events
            self._ask_reveal(seat, drawn, self.revealable)
        return events + self._after_reveal_wave()

    @staticmethod
    def _ask_reveal(seat: int, drawn: list[int], wave: dict[int, tuple[int, ...]]) -> None:
        """Every seat that drew is asked, aces or not: who acts is public, so being asked must tell nothing (GW-2)."""
        if drawn:
            wave[seat] = tuple(c for c in drawn if is_general(c))

    def _after_reveal_wave(self) -> list[Event]:
        if self.revealable:
            self.phase = Phase.REVEAL
            return []
        self.phase = Phase.ATTACK
        return []

    def _resolve_reveals(self) -> list[Event]:
        """All seats of this wave have chosen; reveal and draw for each, attacker first (GW-2)."""
        events: list[Event] = []
        next_wave: dict[int, tuple[int, ...]] = {}
        for seat in self._participants():
            chosen = self.pending_reveals.get(seat, ())
            if not chosen:
                continue
            self.revealed[seat].extend(chosen)
            self._show_all(chosen)
            events.append(broadcast(GeneralsRevealed(seat, tuple(chosen))))
            drawn, drawn_events = self._draw(seat, HAND * len(chosen))
            events += drawn_events
            self._ask_reveal(seat, drawn, next_wave)
        self.revealable = next_wave
        self.pending_reveals = {}
        return events + self._after_reveal_wave()

    def _show_all(self, cards: tuple[int, ...] | list[int]) -> None:
        for seen in self.seen:
            seen.update(cards)

    def _place_squad(self, seat: int, card_ids: tuple[int, ...]) -> list[Event]:
        hand = self.hands[seat]
        for c in card_ids:
            hand.remove(c)
        self.squads[seat] = list(card_ids)
        events = split(seat, self.num_players, SquadPlaced(seat, len(card_ids), tuple(card_ids)), SquadPlaced(seat, len(card_ids), ()))
        if self.phase == Phase.ATTACK:
            self.phase = Phase.DEFEND
            return events
        return events + self._battle()

    def _battle(self) -> list[Event]:
        attacker, defender = self._participants()
        a_squad, d_squad = self.squads[attacker], self.squads[defender]
        a_power, d_power = power(a_squad), power(d_squad)
        winner = attacker if a_power > d_power else defender if d_power > a_power else None
        self._show_all(a_squad + d_squad)
        for seat, squad in ((attacker, a_squad), (defender, d_squad)):
            # Equal power: both squads die (GW-3).
            (self.conquest if seat == winner else self.dead)[seat].extend(squad)
            self.revealed[seat] = [c for c in self.revealed[seat] if c not in squad]
            for card in squad:
                self.memory.played(seat, card)  # face up now: no longer a hand card to remember (GW-17)
        self.squads[attacker], self.squads[defender] = [], []
        self.last_battle = Battle(attacker, defender, tuple(a_squad), tuple(d_squad), a_power, d_power, winner)
        events = [broadcast(BattleResolved(self.last_battle))]
        fallen = [s for s in (attacker, defender) if self.generals_alive(s) == 0]
        if fallen:  # a last general died: the round stops there, without a point (GW-4, GW-6)
            return events + self._end_round(interrupted=True, fallen=fallen)
        if not self.hands[attacker] or not self.hands[defender]:
            return events + self._end_round(interrupted=False)
        self.phase = Phase.ATTACK
        return events

    def _finish_round_cards(self) -> list[int]:
        """Hands to conquest piles, then conquest piles under their owners' decks; returns the pile sizes."""
        counts = [0] * self.num_players
        for seat in self._participants():
            self._remember_under_deck(seat)
            self.conquest[seat].extend(self.hands[seat])
            self.hands[seat] = []
            self.revealed[seat] = []
            counts[seat] = len(self.conquest[seat])
        for seat in self._participants():
            self.decks[seat].extend(self.conquest[seat])
            self.conquest[seat] = []
        return counts

    def _remember_under_deck(self, seat: int) -> None:
        """Who will know each card of the conquest pile and hand about to go under ``seat``'s deck, and where (GW-17).

        The squads won were seen by all in battle. The hand goes face down: its owner knows each card's place, and
        when a single card is left, so does whoever knew that card (a revealed general: everyone).
        """
        size, won, hand = len(self.decks[seat]), self.conquest[seat], self.hands[seat]
        self.memory.put(seat, size, won, everyone(self.num_players))
        mask = 1 << seat
        if len(hand) == 1:
            mask |= everyone(self.num_players) if hand[0] in self.revealed[seat] else self.memory.hand_knowers(seat, hand[0])
        self.memory.put(seat, size + len(won), hand, mask)
        self.memory.forget_hand(seat)

    def _end_round(self, interrupted: bool, fallen: list[int] | None = None) -> list[Event]:
        attacker, defender = self._participants()
        counts = self._finish_round_cards()
        cp_to: int | None = None
        dp_to: int | None = None
        if not interrupted and counts[attacker] != counts[defender]:  # equal piles: no point (GW-5)
            more, fewer = (attacker, defender) if counts[attacker] > counts[defender] else (defender, attacker)
            if self.num_players == 2:
                cp_to = more
                self.conquest_points[more] += 1
            else:
                dp_to = fewer
                self.defeat_points[fewer] += 1
        events = [broadcast(RoundEnded(self.round, tuple(counts), cp_to, dp_to, interrupted))]
        if self.num_players == 2:
            if fallen:
                # A side whose generals are all dead loses; both at once is a draw (GW-4).
                return events + self._game_over(GameEndReason.GENERALS_KILLED, [s for s in range(2) if s not in fallen])
            if cp_to is not None and self.conquest_points[cp_to] >= int(self.options["conquest_points"]):
                return events + self._game_over(GameEndReason.CONQUEST_POINTS, [cp_to])
        else:
            out = list(fallen or [])
            limit = int(self.options["defeat_points"])
            out += [s for s in (attacker, defender) if s not in out and self.defeat_points[s] >= limit]
            events += self._eliminate(out, EliminationReason.NO_GENERAL if fallen else EliminationReason.DEFEAT_POINTS)
            alive = [s for s in range(self.num_players) if not self.eliminated[s]]
            if len(alive) <= 1:
                return events + self._game_over(GameEndReason.LAST_PLAYER_STANDING, alive)
        self.attacker = self._next_attacker()
        return events + self._start_round()

    def _game_over(self, reason: GameEndReason, winners: list[int]) -> list[Event]:
        """The game ends, and everyone is told why, who ranks first and the final scores (GW-21)."""
        self.winners = winners
        self.phase = Phase.OVER
        result = self.result()
        first = tuple(s for s in range(self.num_players) if result.ranks[s] == 1)
        return [broadcast(GameEnded(reason, first, tuple(int(x) for x in result.scores)))]

    def _eliminate(self, seats: list[int], reason: EliminationReason) -> list[Event]:
        if not seats:
            return []
        events: list[Event] = []
        attacker, defender = self._participants()
        for seat in seats:
            self.eliminated[seat] = True
        for seat in seats:
            foe = defender if seat == attacker else attacker
            survivors = list(self.decks[seat])
            self.decks[seat].clear()
            if not self.eliminated[foe]:
                # The surviving cards go under the deck of the player fought (GW-7); if both fell, they leave play (GW-8).
                self.memory.move_pile(seat, len(survivors), foe, len(self.decks[foe]))  # who knew a place still knows it
                self.decks[foe].extend(survivors)
            else:
                self.memory.drop_pile(seat, len(survivors))
            events.append(broadcast(PlayerEliminated(seat, foe, reason, len(survivors) if not self.eliminated[foe] else 0)))
        self.eliminations.append(sorted(seats))
        return events

    def _next_attacker(self) -> int:
        if self.num_players == 2:
            return 1 - self.attacker
        seat = self.attacker
        for _ in range(self.num_players):
            seat = (seat + 1) % self.num_players  # the turn passes to the left (GW-10)
            if not self.eliminated[seat]:
                return seat
        return seat

    # --- what seats may know -------------------------------------------------------

    def generals_alive(self, seat: int) -> int:
        """Generals in the seat's deck, hand, conquest pile and squad; a plain loop, which mypyc compiles to C."""
        count = 0
        for zone in (self.decks[seat], self.hands[seat], self.conquest[seat], self.squads[seat]):
            for card in zone:
                if _IS_GENERAL[card % CARDS_PER_DECK]:
                    count += 1
        return count

    def _player(self, seat: int) -> Player:
        """What everyone sees of ``seat``; the record is built again only when something in it changed."""
        key = (
            len(self.decks[seat]), len(self.hands[seat]), tuple(self.revealed[seat]), tuple(self.dead[seat]),
            tuple(self.conquest[seat]), len(self.squads[seat]), self.conquest_points[seat], self.defeat_points[seat],
            self.eliminated[seat], self.generals_alive(seat),
        )
        return self._players.get(seat, key, self._build_player)

    def _build_player(self, seat: int, key: _PlayerKey) -> Player:
        deck_size, hand_size, revealed, dead, conquest, squad_size, cp, dp, eliminated, alive = key
        return Player(
            seat=seat,
            suits=tuple(int(s) for s in self.suits[seat]),
            deck_size=deck_size,
            hand_size=hand_size,
            revealed_generals=revealed,
            dead=dead,
            conquest=conquest,
            squad_size=squad_size,
            conquest_points=cp,
            defeat_points=dp,
            eliminated=eliminated,
            generals_alive=alive,
        )

    def view(self, seat: int) -> View:
        return View(
            seat=seat,
            num_players=self.num_players,
            round=self.round,
            phase=self.phase,
            attacker=self.attacker,
            defender=self.defender,
            hand=tuple(self.hands[seat]),
            squad=tuple(self.squads[seat]),
            players=tuple(map(self._player, range(self.num_players))),
            conquest_target=int(self.options["conquest_points"]),
            defeat_limit=int(self.options["defeat_points"]),
            last_battle=self.last_battle,
            known=self.memory.known(seat),
        )

    def hidden_cards(self, seat: int) -> set[int]:
        hidden: set[int] = set()
        for other in range(self.num_players):
            hidden.update(self.decks[other])
            if other != seat:
                hidden.update(c for c in self.hands[other] if c not in self.revealed[other])
                hidden.update(self.squads[other])
        return hidden - self.seen[seat]

    def result(self) -> Result:
        n = self.num_players
        if n == 2:
            keys = [1 if s in self.winners else 0 for s in range(n)]
            scores = tuple(float(p) for p in self.conquest_points)
        else:
            outlasted = [0] * n
            gone = 0
            for group in self.eliminations:
                for s in group:
                    outlasted[s] = gone
                gone += len(group)
            for s in range(n):
                if not self.eliminated[s]:
                    outlasted[s] = gone
            keys = outlasted
            scores = tuple(float(k) for k in outlasted)
        return Result(ranks_from_scores(keys), scores)

    def full_state(self) -> dict[str, Any]:
        def names(cards: Any) -> list[str]:
            return [card_str(c) for c in cards]

        last = self.last_battle
        return {
            "round": self.round,
            "phase": self.phase.name,
            "attacker": self.attacker,
            "defender": self.defender,
            # the options a seat's view gives too: a spectator reads what wins and what eliminates
            "conquest_target": int(self.options["conquest_points"]),
            "defeat_limit": int(self.options["defeat_points"]),
            # the battle resolved last, as a seat's view tells it: its cards have gone to the piles since
            "last_battle": None if last is None else {
                "attacker": last.attacker,
                "defender": last.defender,
                "attacker_squad": names(last.attacker_squad),
                "defender_squad": names(last.defender_squad),
                "attacker_power": last.attacker_power,
                "defender_power": last.defender_power,
                "winner": last.winner,
            },
            "players": [
                {
                    "seat": s,
                    "deck": names(self.decks[s]),
                    "hand": names(self.hands[s]),
                    "squad": names(self.squads[s]),
                    "dead": names(self.dead[s]),
                    "conquest": names(self.conquest[s]),
                    "revealed_generals": names(self.revealed[s]),
                    "conquest_points": self.conquest_points[s],
                    "defeat_points": self.defeat_points[s],
                    "eliminated": self.eliminated[s],
                    "generals_alive": self.generals_alive(s),
                }
                for s in range(self.num_players)
            ],
        }
