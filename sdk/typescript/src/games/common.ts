/** What the game helpers share. */

import type { Request } from "../bot.js";
import type { Card as CardMessage } from "../generated/arena/v1/Card.js";
import type { GameId } from "../types.js";

/** A card, or just its id: the builders take either. */
export type CardRef = number | { id?: number };

/** Any card-like message: the fields the helpers read. */
export type CardLike = Pick<CardMessage, "id" | "rank" | "suit">;

export const CLUBS = 1;
export const DIAMONDS = 2;
export const HEARTS = 3;
export const SPADES = 4;
export const ACE = 1;
export const JACK = 11;
export const QUEEN = 12;
export const KING = 13;
export const JOKER = 14;

export function id(card: CardRef): number {
  return typeof card === "number" ? card : (card.id ?? 0);
}

export function ids(cards: Iterable<CardRef>): number[] {
  return Array.from(cards, id);
}

/**
 * Every non-empty subset of `items`: by size, smallest first, and in each size in the order of `items`
 * (as Python's itertools.combinations, so that a bot's "first found" tie-break is the same in both SDKs).
 * Exponential: for hands of a dozen cards or fewer.
 */
export function* subsets<T>(items: readonly T[]): Generator<T[]> {
  function* ofSize(n: number, from: number): Generator<T[]> {
    if (n === 0) {
      yield [];
      return;
    }
    for (let i = from; i <= items.length - n; i++) for (const rest of ofSize(n - 1, i + 1)) yield [items[i]!, ...rest];
  }
  for (let n = 1; n <= items.length; n++) yield* ofSize(n, 0);
}

export function rankOf(card: { rank?: unknown }): number {
  return Number(card.rank ?? 0);
}

export function suitOf(card: { suit?: unknown }): number {
  return Number(card.suit ?? 0);
}

/** The request typed for ``game``; throws when the match is of another game. */
export function forGame<G extends GameId>(request: Request<any>, game: G): Request<G> {
  if (!request.is(game)) throw new Error(`a ${(request as Request).start.game} request given to the ${game} helpers`);
  return request;
}
