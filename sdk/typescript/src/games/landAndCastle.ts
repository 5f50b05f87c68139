/**
 * Land & Castle helpers: card values, battle totals, action builders, and a legal random action from a decision.
 *
 * The battle arithmetic mirrors the referee's (docs/games/land-and-castle.md): an army's total is
 * its value, plus the land's value if the two stack, plus the general's value (with the castle's
 * stacked on it) if the general stacks with the army, plus 3 for a clubs castle in attack or a
 * hearts castle in defence. Two cards stack when neither is a face card (J, Q, K) and they share
 * rank or suit.
 */

import type { Request } from "../bot.js";
import type * as pb from "../generated/arena/v1/land_and_castle/index.js";
import type { Rng } from "../rng.js";
import { CLUBS, type CardLike, type CardRef, forGame, HEARTS, id, JACK, rankOf, suitOf } from "./common.js";

export * as pb from "../generated/arena/v1/land_and_castle/index.js";
export { Phase, WinReason } from "../generated/arena/v1/land_and_castle/index.js";

export { ACE, CLUBS, DIAMONDS, HEARTS, JACK, JOKER, KING, QUEEN, SPADES } from "./common.js";

export const GAME = "land-and-castle";
export type View = pb.View__Output;
export type Decision = pb.Decision__Output;
export type Action = pb.Action;
export type Event = pb.Event__Output;
export type Kind = NonNullable<Decision["kind"]>;
type Card = CardLike;

export const CASTLE_BONUS = 3;

export const isFace = (card: Card): boolean => rankOf(card) >= JACK;

/** Ace 1, two to ten face value, jack 0, queen and king 11. */
export function armyValue(card: Card): number {
  const rank = rankOf(card);
  if (rank === JACK) return 0;
  return rank > JACK ? 11 : rank;
}

/** Ace 1, two to ten face value, jack, queen and king 0. */
export function landValue(card: Card): number {
  return rankOf(card) >= JACK ? 0 : rankOf(card);
}

/** True when neither card is a face card and they share the rank or the suit. */
export function stacks(a: Card, b: Card): boolean {
  if (isFace(a) || isFace(b)) return false;
  return rankOf(a) === rankOf(b) || suitOf(a) === suitOf(b);
}

/** The suit of a castle's bonus; null for no castle or a face-card castle. */
export function castleSuit(castle: Card | null | undefined): number | null {
  if (!castle || isFace(castle)) return null;
  return suitOf(castle);
}

/** A side's battle total; `land` null (face down) counts as no land bonus. */
export function total(army: Card, land: Card | null | undefined, general: Card | null | undefined, castle: Card | null | undefined, attacking: boolean): number {
  let value = armyValue(army);
  if (land && stacks(army, land)) value += landValue(land);
  if (general && stacks(general, army)) {
    value += rankOf(general);
    if (castle && stacks(castle, general)) value += rankOf(castle);
  }
  if (castleSuit(castle) === (attacking ? CLUBS : HEARTS)) value += CASTLE_BONUS;
  return value;
}

/** Same suit: the lower total wins; otherwise the higher; ties go to the attacker. */
export function defenderWins(attackerArmy: Card, attackerTotal: number, defenderArmy: Card, defenderTotal: number): boolean {
  if (suitOf(attackerArmy) === suitOf(defenderArmy)) return defenderTotal < attackerTotal;
  return defenderTotal > attackerTotal;
}

/** Neighbouring lands agree when they share a suit or their land values differ by at most one. */
export function linked(a: Card, b: Card): boolean {
  return suitOf(a) === suitOf(b) || Math.abs(landValue(a) - landValue(b)) <= 1;
}

/** An optional Card field of a message, or null when unset (as Python's `card_of(holder, field)`). */
export function cardOf<H extends object, F extends keyof H>(holder: H, field: F): NonNullable<H[F]> | null {
  return holder[field] ?? null;
}

// --- action builders ----------------------------------------------------------------------

export function placeCastle(card: CardRef): Action {
  return { placeCastle: { cardId: id(card) } };
}

export function placeGeneral(card: CardRef): Action {
  return { placeGeneral: { cardId: id(card) } };
}

export function swap(card: CardRef): Action {
  return { swapCard: { cardId: id(card) } };
}

export function attack(card: CardRef, land: number): Action {
  return { attack: { cardId: id(card), land } };
}

export function defend(card: CardRef): Action {
  return { defend: { cardId: id(card) } };
}

export function control(land: number): Action {
  return { control: { land } };
}

export function capture(land: number, card: CardRef): Action {
  return { capture: { land, cardId: id(card) } };
}

/** A legal action chosen at random from the decision alone. */
export function sample(request: Request<any>, rng: Rng): Action {
  const r = forGame(request, GAME);
  const castle = r.choiceFor("castleChoice");
  if (castle) return placeCastle(rng.choice(castle.playable));
  const general = r.choiceFor("generalChoice");
  if (general) return placeGeneral(rng.choice(general.playable));
  const attackChoice = r.choiceFor("attackChoice");
  const defendChoice = r.choiceFor("defendChoice");
  const battle = attackChoice ?? defendChoice;
  if (battle) {
    const options = battle.playable.length * (attackChoice ? attackChoice.lands.length : 1);
    if (battle.swappable.length && rng.randrange(options + battle.swappable.length) >= options) return swap(rng.choice(battle.swappable));
    const card = rng.choice(battle.playable);
    return attackChoice ? attack(card, rng.choice(attackChoice.lands)) : defend(card);
  }
  const claim = r.choice as pb.ClaimChoice__Output;
  const land = rng.choice(claim.lands);
  const pick = rng.randrange(claim.exchangeable.length + 1);
  const card = claim.exchangeable[pick];
  return card ? capture(land, card) : control(land);
}
