/** General's War helpers: action builders and a legal random action from a decision. */

import type { Request } from "../bot.js";
import type * as pb from "../generated/arena/v1/generals_war/index.js";
import type { Rng } from "../rng.js";
import { type CardLike, type CardRef, forGame, ids, rankOf } from "./common.js";

export * as pb from "../generated/arena/v1/generals_war/index.js";
export { EliminationReason, Phase } from "../generated/arena/v1/generals_war/index.js";

export { ACE, CLUBS, DIAMONDS, HEARTS, JACK, JOKER, KING, QUEEN, SPADES } from "./common.js";

export const GAME = "generals-war";
export type View = pb.View__Output;
export type Decision = pb.Decision__Output;
export type Action = pb.Action;
export type Event = pb.Event__Output;
export type Kind = NonNullable<Decision["kind"]>;

export function reveal(cards: Iterable<CardRef> = []): Action {
  return { revealGenerals: { cardIds: ids(cards) } };
}

export function target(seat: number): Action {
  return { chooseTarget: { target: seat } };
}

export function squad(cards: Iterable<CardRef>): Action {
  return { playSquad: { cardIds: ids(cards) } };
}

/** A card's power is its rank number (ace 1 ... king 13). */
export function power(card: Pick<CardLike, "rank">): number {
  return rankOf(card);
}

/** A legal action chosen at random from the decision alone. */
export function sample(request: Request<any>, rng: Rng): Action {
  const r = forGame(request, GAME);
  const reveal_ = r.choiceFor("revealChoice");
  if (reveal_) return reveal(reveal_.revealable.filter(() => rng.chance(0.5)));
  const target_ = r.choiceFor("targetChoice");
  if (target_) return target(rng.choice(target_.targets));
  const choice = r.choice as pb.SquadChoice__Output;
  const size = rng.randint(choice.minCards, choice.maxCards);
  return squad(rng.sample(choice.playable, size));
}
