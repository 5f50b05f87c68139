/**
 * ts-land-and-castle: a heuristic Land & Castle bot written with the TypeScript SDK.
 *
 * The plan of the Python heuristic bot (sample_bots/land_and_castle_heuristic). Battles are won on
 * totals that the castle and general add to every turn, and the armies a winner controls come back
 * through his draw pile, so:
 *
 * - its castle gives a bonus in every battle (clubs or hearts +3, spades the wider claim), is never
 *   a face card, and stacks with as many of its other cards as it can;
 * - its general is the non-face card that adds the most, a stacked castle included;
 * - with a diamonds castle it swaps away an army worth 2 or less;
 * - it attacks where its chance of winning, counted over the cards it has not seen, is best,
 *   preferring the opponent's lands, then unclaimed ones;
 * - it defends with the cheapest army that wins, and throws its weakest when none does;
 * - when it wins it captures only to win by conversion at once; otherwise it controls, so its draw
 *   pile grows and it outlasts an opponent who discards (a spades castle takes the opponent's lands first).
 *
 * It draws no random numbers: a deal is always played the same way. main.ts runs it;
 * sdk/typescript/scripts/build-bots.sh bundles main.ts into dist/main.js (scripts/setup.sh runs that).
 */

import { Bot, type Card, landAndCastle as lc, type ChoiceOf, type Request, Suit } from "arena-sdk";

/** What a castle's suit is worth: clubs and hearts add 3 a battle, spades widen every claim, diamonds only swap. */
const SUIT_WORTH: Record<number, number> = { [Suit.CLUBS]: 3, [Suit.HEARTS]: 3, [Suit.SPADES]: 3.5, [Suit.DIAMONDS]: 1.5 };

/** The 52 cards, numbered as the referee does (suit index * 13 + rank - 1): the unseen ones come from here. */
const DECK = Array.from({ length: 52 }, (_, id) => ({ id, rank: (id % 13) + 1, suit: Math.floor(id / 13) + 1 }) as Card);

export class LandAndCastleBot extends Bot<"land-and-castle"> {
  override name = "ts-land-and-castle";
  override version = "1.0.0";

  act(request: Request<"land-and-castle">): lc.Action {
    const view = request.view;
    const castle = request.choiceFor("castleChoice");
    if (castle) return lc.placeCastle(chooseCastle(castle.playable));
    const general = request.choiceFor("generalChoice");
    if (general) return lc.placeGeneral(chooseGeneral(general.playable, view.players[view.seat]?.castle ?? null));
    const attack = request.choiceFor("attackChoice");
    const defence = request.choiceFor("defendChoice");
    // The first card listed of least army value, as the Python bot's min() takes (not the lowest id of them).
    const swappable = (attack ?? defence)?.swappable ?? [];
    const swap = swappable.length > 0 ? best(swappable, (c) => -lc.armyValue(c)) : undefined;
    if (swap && lc.armyValue(swap) <= 2) return lc.swap(swap); // an ace, two or jack hardly ever wins a battle
    if (attack) return chooseAttack(view, attack);
    if (defence) return chooseDefence(view, defence);
    const claim = request.choiceFor("claimChoice");
    if (!claim) throw new Error(`ts-land-and-castle cannot answer a ${request.kind} decision`);
    return chooseClaim(view, claim);
  }
}

/** The non-face card with the best suit bonus, then rank, then the most other cards of the hand it stacks with. */
function chooseCastle(hand: readonly Card[]): Card {
  const stacking = (c: Card): number => hand.filter((g) => g.id !== c.id && lc.stacks(g, c)).length;
  return best(hand, (c) => (lc.isFace(c) ? -1 : SUIT_WORTH[c.suit]! + 0.2 * c.rank + 0.5 * stacking(c)));
}

/** The non-face card that adds the most when it stacks (with the castle's value when the castle stacks on it). */
function chooseGeneral(hand: readonly Card[], castle: Card | null): Card {
  return best(hand, (g) => (lc.isFace(g) ? -1 : g.rank + (castle && lc.stacks(castle, g) ? castle.rank : 0)));
}

function chooseAttack(view: lc.View, choice: ChoiceOf<"land-and-castle", "attackChoice">): lc.Action {
  const foe = 1 - view.seat;
  const [mine, theirs] = [view.players[view.seat], view.players[foe]];
  const unseen = unseenCards(view);
  const spread = unseen.filter((_, i) => i % 4 === 0); // a face-down land could be any unseen card: a quarter of them stand for it
  // The share of (land, defending army) pairs drawn from the unseen cards that this army beats.
  const winChance = (army: Card, land: Card | null): number => {
    let wins = 0;
    let count = 0;
    for (const ground of land ? [land] : spread) {
      const attack = lc.total(army, ground, mine?.general, mine?.castle, true);
      for (const defender of unseen) {
        if (defender.id === ground.id) continue;
        count++;
        if (!lc.defenderWins(army, attack, defender, lc.total(defender, ground, theirs?.general, theirs?.castle, false))) wins++;
      }
    }
    return wins / Math.max(1, count);
  };
  let chosen = { score: -Infinity, army: 0, land: 0 };
  for (const position of choice.lands) {
    const land = view.lands[position]!;
    // Taking a land from the opponent counts twice (he loses it); retaking one's own gains nothing.
    const shift = land.owner === foe ? 0 : land.owner === undefined ? -1 : -2;
    for (const army of choice.playable) {
      // A little less for a stronger army: on a near tie it keeps its best cards for later.
      const score = 2 * winChance(army, land.card ?? null) + shift - 0.01 * lc.armyValue(army);
      if (score > chosen.score) chosen = { score, army: army.id, land: position };
    }
  }
  return lc.attack(chosen.army, chosen.land);
}

function chooseDefence(view: lc.View, choice: ChoiceOf<"land-and-castle", "defendChoice">): lc.Action {
  const mine = view.players[view.seat];
  const land = view.lands[choice.land]?.card;
  const attacker = choice.attackingArmy!;
  const winners = choice.playable.filter((c) =>
    lc.defenderWins(attacker, choice.attackerTotal, c, lc.total(c, land, mine?.general, mine?.castle, false)),
  );
  return lc.defend(weakest(winners.length > 0 ? winners : choice.playable)!);
}

function chooseClaim(view: lc.View, choice: ChoiceOf<"land-and-castle", "claimChoice">): lc.Action {
  const row = view.lands.map((land) => land.card ?? null);
  // A capture that links every pair of neighbours wins by conversion at once.
  for (const position of choice.lands) {
    for (const card of choice.exchangeable) {
      if (converts(row.map((c, i) => (i === position ? card : c)))) return lc.capture(position, card);
    }
  }
  // Otherwise control, which keeps both armies: the opponent's land first, then an unclaimed one, then the battled one.
  const foe = 1 - view.seat;
  return lc.control(
    best(choice.lands, (p) => {
      const owner = view.lands[p]?.owner;
      return 4 * Number(owner === foe) + 2 * Number(owner === undefined) + Number(p === choice.battleLand);
    }),
  );
}

/**
 * Cards that may be the opponent's answer or a face-down land: the opponent's hand, both draw piles and the face-down
 * lands, less the cards it knows lie in a draw pile (`view.known`: its own swapped cards, the armies control put under
 * a pile). Cards it knows are in the opponent's hand are still his to play: they stay.
 */
function unseenCards(view: lc.View): Card[] {
  const seen = [
    ...view.known.flatMap((seat) => seat.drawPile.map((pileCard) => pileCard.card)),
    ...view.hand,
    ...view.lands.map((land) => land.card),
    ...view.players.flatMap((p) => [...p.discard, p.castle, p.general]),
    view.battle?.attacker?.army,
    view.battle?.defender?.army,
  ];
  const ids = new Set(seen.flatMap((c) => (c ? [c.id] : [])));
  return DECK.filter((c) => !ids.has(c.id));
}

/** True when every land is face up and each pair of neighbours shares a suit or is within one in land value. */
function converts(row: readonly (Card | null)[]): boolean {
  return row.every((c, i) => c !== null && (i === 0 || lc.linked(row[i - 1]!, c)));
}

/** The weakest army (lowest value, then lowest id); undefined for none. */
function weakest(cards: readonly Card[]): Card | undefined {
  return [...cards].sort((a, b) => lc.armyValue(a) - lc.armyValue(b) || a.id - b.id)[0];
}

/** The first item with the highest worth. */
function best<T>(items: readonly T[], worth: (item: T) => number): T {
  return items.reduce((a, b) => (worth(b) > worth(a) ? b : a));
}
