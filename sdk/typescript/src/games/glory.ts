/** Glory helpers: card roles and values, action builders, and a legal random action from a decision. */

import type { Request } from "../bot.js";
import type * as pb from "../generated/arena/v1/glory/index.js";
import type { Rng } from "../rng.js";
import { CLUBS, type CardLike, type CardRef, DIAMONDS, forGame, HEARTS, id, ids, JACK, JOKER, KING, QUEEN, rankOf, SPADES, suitOf } from "./common.js";

export * as pb from "../generated/arena/v1/glory/index.js";
export { AttackKind, GloryReason, Phase, RoundEndReason } from "../generated/arena/v1/glory/index.js";

export { ACE, CLUBS, DIAMONDS, HEARTS, JACK, JOKER, KING, QUEEN, SPADES } from "./common.js";

export const GAME = "glory";
export type View = pb.View__Output;
export type Decision = pb.Decision__Output;
export type Action = pb.Action;
export type Event = pb.Event__Output;
export type Kind = NonNullable<Decision["kind"]>;
type Card = CardLike;

/** Ace 1, two to ten face value, jack 10, queen 11, king 12, joker 25. */
export function value(card: Card): number {
  const rank = rankOf(card);
  return ({ [JACK]: 10, [QUEEN]: 11, [KING]: 12, [JOKER]: 25 } as Record<number, number>)[rank] ?? rank;
}

export const isGeneral = (card: Card): boolean => rankOf(card) >= JACK && rankOf(card) <= KING;
export const isAssassin = (card: Card): boolean => rankOf(card) === JOKER;
export const isSoldier = (card: Card): boolean => suitOf(card) === CLUBS && rankOf(card) <= 10;
export const isLand = (card: Card): boolean => suitOf(card) === SPADES && rankOf(card) <= 10;
export const isMoney = (card: Card): boolean => suitOf(card) === DIAMONDS && rankOf(card) <= 10;
export const isHealth = (card: Card): boolean => suitOf(card) === HEARTS && rankOf(card) <= 10;

/** Mercenaries and healing are worth half a card's value, rounded up. */
export function halfUp(v: number): number {
  return Math.floor((v + 1) / 2);
}

export function total(cards: Iterable<Card>): number {
  let sum = 0;
  for (const c of cards) sum += value(c);
  return sum;
}

// --- action builders ------------------------------------------------------------------------

export function buyLand(lands: Iterable<CardRef>, money: Iterable<CardRef>): Action {
  return { buyLand: { landIds: ids(lands), moneyIds: ids(money) } };
}

export function conquerLand(target: number, cards: Iterable<CardRef>, money: Iterable<CardRef> = []): Action {
  return { conquerLand: { target, cardIds: ids(cards), moneyIds: ids(money) } };
}

export function attackKing(target: number, cards: Iterable<CardRef>, money: Iterable<CardRef> = []): Action {
  return { attackKing: { target, cardIds: ids(cards), moneyIds: ids(money) } };
}

export function assassinate(target: number, cards: Iterable<CardRef>): Action {
  return { assassinate: { target, cardIds: ids(cards) } };
}

export function heal(card: CardRef): Action {
  return { heal: { cardId: id(card) } };
}

export function discard(cards: Iterable<CardRef>): Action {
  return { discard: { cardIds: ids(cards) } };
}

export function passTurn(): Action {
  return { passTurn: {} };
}

/** Offers for assistance: {seat: cards from your Domain and Treasury} (an empty list is a bare appeal). */
export function offers(offersBySeat: Map<number, Iterable<CardRef>> | Record<number, Iterable<CardRef>> = {}): Action {
  const entries = offersBySeat instanceof Map ? [...offersBySeat.entries()] : Object.entries(offersBySeat).map(([s, c]) => [Number(s), c] as const);
  const made = entries.sort((a, b) => a[0] - b[0]).map(([seat, cards]) => ({ seat, cardIds: ids(cards) }));
  return { makeOffers: { offers: made } };
}

/** Assist `seat` (the attacker or the defender) with Generals and Soldiers. */
export function assist(seat: number, cards: Iterable<CardRef>): Action {
  return { assist: { seat, cardIds: ids(cards) } };
}

export function declineAssist(): Action {
  return { declineAssist: {} };
}

export function defend(cards: Iterable<CardRef> = []): Action {
  return { defend: { cardIds: ids(cards) } };
}

export function thwart(cards: Iterable<CardRef> = []): Action {
  return { thwart: { cardIds: ids(cards) } };
}

export function moreAssassins(cards: Iterable<CardRef> = []): Action {
  return { moreAssassins: { cardIds: ids(cards) } };
}

export function startRound(): Action {
  return { startRound: {} };
}

// --- a legal random action -------------------------------------------------------------------

/** A legal action chosen at random from the decision alone (each kind of move equally likely). */
export function sample(request: Request<any>, rng: Rng): Action {
  const r = forGame(request, GAME);
  const turn = r.choiceFor("turnChoice");
  if (turn) return sampleTurn(turn, rng);
  const offer = r.choiceFor("offerChoice");
  if (offer) {
    const recipients = offer.recipients;
    if (recipients.length === 0 || rng.chance(0.5)) return offers();
    const given = new Map<number, Card[]>();
    for (const card of offer.offerable) {
      if (rng.chance(0.3)) {
        const seat = rng.choice(recipients);
        given.set(seat, [...(given.get(seat) ?? []), card]);
      }
    }
    // a bare appeal: asking for help, offering nothing (as the referee's random action)
    for (const seat of recipients) if (!given.has(seat) && rng.chance(0.3)) given.set(seat, []);
    return offers(given);
  }
  const assistChoice = r.choiceFor("assistChoice");
  if (assistChoice) {
    const playable = assistChoice.playable;
    if (playable.length === 0 || rng.chance(1 / 3)) return declineAssist();
    const some = rng.some(playable);
    return assist(rng.choice([assistChoice.attacker, assistChoice.defender]), some.length ? some : [rng.choice(playable)]);
  }
  const defendChoice = r.choiceFor("defendChoice");
  if (defendChoice) return defend(rng.some(defendChoice.playable));
  const thwartChoice = r.choiceFor("thwartChoice");
  if (thwartChoice) {
    const assassins = thwartChoice.assassins;
    if (assassins.length >= thwartChoice.required && rng.chance(0.5)) return thwart(rng.sample(assassins, thwartChoice.required));
    return thwart();
  }
  const more = r.choiceFor("moreAssassinsChoice");
  if (more) {
    const assassins = more.assassins;
    if (assassins.length && rng.chance(0.5)) {
      const some = rng.some(assassins);
      return moreAssassins(some.length ? some : [rng.choice(assassins)]);
    }
    return moreAssassins();
  }
  return startRound();
}

function sampleTurn(choice: pb.TurnChoice__Output, rng: Rng): Action {
  const hand = [...choice.hand];
  const lands = [...choice.lands];
  const treasury = [...choice.treasury];
  const { generals, soldiers, assassins } = choice;
  const budget = total(treasury);
  const kinds: string[] = [];
  if (hand.length) kinds.push("discard");
  if (choice.health.length) kinds.push("heal");
  if (lands.length && treasury.length && Math.min(...lands.map(value)) <= budget) kinds.push("buy");
  if (generals.length && choice.conquerTargets.length) kinds.push("conquer");
  if (generals.length && choice.kingTargets.length) kinds.push("king");
  if (assassins.length && choice.kingTargets.length) kinds.push("assassinate");
  if (choice.canPass) kinds.push("pass");
  const kind = rng.choice(kinds);
  if (kind === "discard") {
    const aces = choice.aces;
    if (aces.length && rng.chance(0.5)) {
      const ace = rng.choice(aces);
      return discard([ace, ...rng.some(hand.filter((c) => c.id !== ace.id))]);
    }
    return discard([rng.choice(hand)]);
  }
  if (kind === "heal") return heal(rng.choice(choice.health));
  if (kind === "buy") {
    rng.shuffle(lands);
    const want = rng.randint(1, lands.length);
    const chosen: Card[] = [];
    for (const card of lands) {
      if (chosen.length < want && total(chosen) + value(card) <= budget) chosen.push(card);
    }
    rng.shuffle(treasury);
    const paid: Card[] = [];
    for (const card of treasury) {
      if (total(paid) >= total(chosen)) break;
      paid.push(card);
    }
    return buyLand(chosen, paid);
  }
  if (kind === "conquer" || kind === "king") {
    const general = rng.choice(generals);
    const force = [general, ...rng.some([...generals, ...soldiers].filter((c) => c.id !== general.id))];
    const money = rng.some(treasury, 0.3);
    if (kind === "conquer") return conquerLand(rng.choice(choice.conquerTargets), force, money);
    return attackKing(rng.choice(choice.kingTargets), force, money);
  }
  if (kind === "assassinate") {
    const some = rng.some(assassins);
    return assassinate(rng.choice(choice.kingTargets), some.length ? some : [rng.choice(assassins)]);
  }
  return passTurn();
}
