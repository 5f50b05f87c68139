/** What the game helpers share. */

import type { Request } from "../bot.js";
import { Rank } from "../generated/arena/v1/Rank.js";
import { Suit } from "../generated/arena/v1/Suit.js";
import type { GameId } from "../types.js";

/** A card, or just its id: the builders take either. */
export type CardRef = number | { id?: number };

/**
 * Any card-like value: the fields the helpers read. A card as received, or one a bot writes itself: its rank and suit
 * as numbers (`{ rank: 5, suit: 1 }`) or as the enums' names (`{ rank: "FIVE", suit: "CLUBS" }`).
 */
export type CardLike = { id?: number; rank?: number | keyof typeof Rank; suit?: number | keyof typeof Suit };

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
  if (typeof card === "object" && card !== null) return card.id ?? 0;
  // A number, or what is neither a card nor an id (a string slipped past the types), left for `wrap` to refuse by its
  // field's name (fields.ts): read as a card, "3" had no id and went as card 0.
  return card;
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

// The enums' numbers, made once: the heuristic bots read ranks and suits inside their subset searches.
const RANKS: ReadonlySet<number> = new Set(Object.values(Rank));
const SUITS: ReadonlySet<number> = new Set(Object.values(Suit));

/** A card's rank as a number (1 to 13, 14 for a joker); a name (`"FIVE"`) is looked up, anything else throws. */
export function rankOf(card: Pick<CardLike, "rank">): number {
  return enumValue(Rank, RANKS, card.rank, "rank");
}

/** A card's suit as a number (1 clubs to 4 spades, 0 for a joker); a name (`"CLUBS"`) is looked up, anything else throws. */
export function suitOf(card: Pick<CardLike, "suit">): number {
  return enumValue(Suit, SUITS, card.suit, "suit");
}

function enumValue(values: Readonly<Record<string, number>>, numbers: ReadonlySet<number>, value: unknown, what: string): number {
  if (value === undefined || value === null) return 0;
  if (typeof value === "number" && numbers.has(value)) return value;
  if (typeof value === "string" && Object.hasOwn(values, value)) return values[value]!;
  // "(a number or one of ...)" told a bot's `rank: 15` that a number was what belonged: which numbers is said.
  const [least, most] = [Math.min(...numbers), Math.max(...numbers)];
  throw new RangeError(`not a card ${what}: ${JSON.stringify(value)} (a whole number from ${least} to ${most}, or one of ${Object.keys(values).join(", ")})`);
}

/** The request typed for ``game``; throws when the match is of another game. */
export function forGame<G extends GameId>(request: Request<any>, game: G): Request<G> {
  if (!request.is(game)) throw new Error(`a ${(request as Request).start.game} request given to the ${game} helpers`);
  return request;
}
