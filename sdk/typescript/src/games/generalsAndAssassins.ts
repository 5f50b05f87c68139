/**
 * Generals & Assassins helpers: card values and roles, action builders, and a legal random action.
 *
 * Card values: ace 1, two to ten face value, jack 10, queen 11, king 12, joker 25.
 * Roles: court cards (J, Q, K) of any suit are generals; other clubs are soldiers, spades land,
 * diamonds money, hearts health; jokers are assassins.
 */

import type { Request } from "../bot.js";
import type * as pb from "../generated/arena/v1/generals_and_assassins/index.js";
import type { Rng } from "../rng.js";
import { ACE, CLUBS, type CardLike, type CardRef, DIAMONDS, forGame, HEARTS, id, ids, JOKER, rankOf, SPADES, subsets, suitOf } from "./common.js";

export * as pb from "../generated/arena/v1/generals_and_assassins/index.js";
export { BattleKind, Phase, RoundEndReason, Side } from "../generated/arena/v1/generals_and_assassins/index.js";

export { ACE, CLUBS, DIAMONDS, HEARTS, JACK, JOKER, KING, QUEEN, SPADES } from "./common.js";

export const GAME = "generals-and-assassins";
export type View = pb.View__Output;
export type Decision = pb.Decision__Output;
export type Action = pb.Action;
export type Event = pb.Event__Output;
export type Kind = NonNullable<Decision["kind"]>;
type Card = CardLike;

/** The sides of an attack (the values of `Side`). */
export const ATTACKER = 1;
export const DEFENDER = 2;

// --- cards -----------------------------------------------------------------------

export function value(card: Card): number {
  const rank = rankOf(card);
  if (rank === JOKER) return 25;
  return rank >= 11 ? rank - 1 : rank;
}

export const isGeneral = (card: Card): boolean => rankOf(card) >= 11 && rankOf(card) <= 13;
export const isSoldier = (card: Card): boolean => suitOf(card) === CLUBS && rankOf(card) <= 10;
export const isFighter = (card: Card): boolean => isGeneral(card) || isSoldier(card);
export const isLand = (card: Card): boolean => suitOf(card) === SPADES && rankOf(card) <= 10;
export const isMoney = (card: Card): boolean => suitOf(card) === DIAMONDS && rankOf(card) <= 10;
export const isHealth = (card: Card): boolean => suitOf(card) === HEARTS && rankOf(card) <= 10;
export const isAssassin = (card: Card): boolean => rankOf(card) === JOKER;
export const isAce = (card: Card): boolean => rankOf(card) === ACE;

export function total(cards: Iterable<Card>): number {
  let sum = 0;
  for (const c of cards) sum += value(c);
  return sum;
}

// --- action builders -------------------------------------------------------------

export function attack(target: number, cards: Iterable<CardRef>): Action {
  return { attack: { target, cardIds: ids(cards) } };
}

export function assassinate(target: number, card: CardRef): Action {
  return { assassinate: { target, cardId: id(card) } };
}

export function buyLand(money: Iterable<CardRef>, lands: Iterable<CardRef>): Action {
  return { buyLand: { moneyIds: ids(money), landIds: ids(lands) } };
}

export function heal(card: CardRef): Action {
  return { heal: { cardId: id(card) } };
}

export function discard(cards: Iterable<CardRef>): Action {
  return { discard: { cardIds: ids(cards) } };
}

/** Offers as {seat: land ids}; nothing offers nothing (seats with no lands are left out). */
export function offerLands(offers: Map<number, Iterable<CardRef>> | Record<number, Iterable<CardRef>> = {}): Action {
  const entries = offers instanceof Map ? [...offers.entries()] : Object.entries(offers).map(([s, c]) => [Number(s), c] as const);
  const made = entries
    .sort((a, b) => a[0] - b[0])
    .map(([seat, lands]) => ({ seat, landIds: ids(lands) }))
    .filter((o) => o.landIds.length > 0);
  return { offerLands: { offers: made } };
}

/** `side` is ATTACKER or DEFENDER. */
export function assist(side: number, card: CardRef): Action {
  return { assist: { side: side as pb.Side, cardId: id(card) } };
}

export function decline(): Action {
  return { decline: {} };
}

export function defend(cards: Iterable<CardRef> = []): Action {
  return { defend: { cardIds: ids(cards) } };
}

export function playAssassin(card: CardRef): Action {
  return { playAssassin: { cardId: id(card) } };
}

export function startRound(): Action {
  return { startRound: {} };
}

// --- a legal random action from the decision alone ------------------------------

/** Every (money, lands) pair that buys at least one land, in the Python SDK's order (`subsets`'s, lands first;
 * exponential in the cards: for small hands). */
export function purchases<C extends Card>(money: readonly C[], land: readonly C[]): [C[], C[]][] {
  const out: [C[], C[]][] = [];
  const coinSets = [...subsets(money)];
  for (const lands of subsets(land)) {
    const need = total(lands);
    for (const coins of coinSets) if (total(coins) >= need) out.push([coins, lands]);
  }
  return out;
}

/** Whether any land can be bought: the cheapest land costs no more than all the money. */
export function canBuy(money: readonly Card[], land: readonly Card[]): boolean {
  return money.length > 0 && land.length > 0 && Math.min(...land.map(value)) <= total(money);
}

/** A random purchase (some lands the money covers, paid with coins until their value is reached); needs canBuy. */
export function samplePurchase<C extends Card>(money: readonly C[], land: readonly C[], rng: Rng): [C[], C[]] {
  const budget = total(money);
  const lands: C[] = [];
  for (const card of rng.shuffle([...land])) {
    if (total(lands) + value(card) <= budget && (lands.length === 0 || rng.chance(0.5))) lands.push(card);
  }
  const coins: C[] = [];
  for (const coin of rng.shuffle([...money])) {
    if (total(coins) >= total(lands)) break;
    coins.push(coin);
  }
  return [coins, lands];
}

/** A legal action: for a turn, a kind of action at random, then one of that kind. */
export function sample(request: Request<any>, rng: Rng): Action {
  const r = forGame(request, GAME);
  const turn = r.choiceFor("turnChoice");
  if (turn) return sampleTurn(turn, rng);
  const offer = r.choiceFor("offerChoice");
  if (offer) {
    const options: (number | null)[] = [null, ...offer.recipients];
    const given = new Map<number, number[]>();
    for (const land of offer.lands) {
      const seat = rng.choice(options);
      if (seat !== null) given.set(seat, [...(given.get(seat) ?? []), land.id]);
    }
    return offerLands(given);
  }
  const assistChoice = r.choiceFor("assistChoice");
  if (assistChoice) {
    const options = [decline(), ...[ATTACKER, DEFENDER].flatMap((side) => assistChoice.cards.map((c) => assist(side, c)))];
    return rng.choice(options);
  }
  const defence = r.choiceFor("defenceChoice");
  if (defence) return defend(rng.some(defence.cards));
  if (r.kind === "nextRoundChoice") return startRound();
  const assassin = r.choice as pb.AssassinChoice__Output;
  return rng.choice([decline(), ...assassin.assassins.map((c) => playAssassin(c))]);
}

function sampleTurn(choice: pb.TurnChoice__Output, rng: Rng): Action {
  const targets = choice.targets;
  const kinds = ["discard"];
  if (choice.generals.length) kinds.push("attack");
  if (choice.assassins.length) kinds.push("assassinate");
  if (choice.health.length) kinds.push("heal");
  if (canBuy(choice.money, choice.land)) kinds.push("buy");
  const kind = rng.choice(kinds);
  if (kind === "attack") {
    const fighters = [...choice.generals, ...choice.soldiers];
    for (;;) {
      // uniform over the sets holding at least one general (each try succeeds with p >= 1/2)
      const picked = rng.some(fighters);
      if (picked.some(isGeneral)) return attack(rng.choice(targets), picked);
    }
  }
  if (kind === "assassinate") return assassinate(rng.choice(targets), rng.choice(choice.assassins));
  if (kind === "heal") return heal(rng.choice(choice.health));
  if (kind === "buy") {
    const [coins, lands] = samplePurchase(choice.money, choice.land, rng);
    return buyLand(coins, lands);
  }
  const first = rng.choice(choice.hand);
  if (isAce(first)) return discard([first, ...choice.hand.filter((c) => c.id !== first.id && rng.chance(0.5))]); // an ace may take any other cards with it
  return discard([first]);
}
