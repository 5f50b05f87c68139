/** The games of the protocol, and each game's own view, decision, action and event types. */

import type * as asn from "./generated/arena/v1/assassination/index.js";
import type * as ga from "./generated/arena/v1/generals_and_assassins/index.js";
import type * as gw from "./generated/arena/v1/generals_war/index.js";
import type * as gl from "./generated/arena/v1/glory/index.js";
import type * as lc from "./generated/arena/v1/land_and_castle/index.js";
import type * as v1 from "./generated/arena/v1/index.js";

/** What a game's messages are: `view`, `decision`, `event` as received; `action` as a bot builds it; `listed` as the referee lists it. */
export interface GameMessages<Field extends string, View, Decision, Action, Listed, Event> {
  field: Field;
  view: View;
  decision: Decision;
  action: Action;
  listed: Listed;
  event: Event;
}

export interface GameTypes {
  "generals-war": GameMessages<"generalsWar", gw.View__Output, gw.Decision__Output, gw.Action, gw.Action__Output, gw.Event__Output>;
  glory: GameMessages<"glory", gl.View__Output, gl.Decision__Output, gl.Action, gl.Action__Output, gl.Event__Output>;
  "generals-and-assassins": GameMessages<
    "generalsAndAssassins",
    ga.View__Output,
    ga.Decision__Output,
    ga.Action,
    ga.Action__Output,
    ga.Event__Output
  >;
  "land-and-castle": GameMessages<"landAndCastle", lc.View__Output, lc.Decision__Output, lc.Action, lc.Action__Output, lc.Event__Output>;
  assassination: GameMessages<"assassination", asn.View__Output, asn.Decision__Output, asn.Action, asn.Action__Output, asn.Event__Output>;
}

/** A game id, as in `arena games` and GameStart.game. */
export type GameId = keyof GameTypes;

/** Every game id the SDK knows, in the order of `arena games`. */
export const GAMES: readonly GameId[] = ["generals-war", "generals-and-assassins", "glory", "land-and-castle", "assassination"];

export type ViewOf<G extends GameId> = GameTypes[G]["view"];
export type DecisionOf<G extends GameId> = GameTypes[G]["decision"];
export type EventOf<G extends GameId> = GameTypes[G]["event"];
/** A game's action as the referee lists it in `legal_actions` (every field present). */
export type ListedActionOf<G extends GameId> = GameTypes[G]["listed"];
/** The names of a game's decision kinds, such as "squadChoice". */
export type KindOf<G extends GameId> = G extends GameId ? NonNullable<DecisionOf<G>["kind"]> : never;
/** The constraints message of one kind of decision (or of every kind). */
export type ChoiceOf<G extends GameId, K extends string = KindOf<G>> = G extends GameId
  ? K extends keyof DecisionOf<G>
    ? NonNullable<DecisionOf<G>[K]>
    : never
  : never;

/**
 * A decision's kind and its constraints as one value, a member per kind: a `switch` (or an `if`) on `kind` narrows
 * `choice` to that kind's message, which `request.kind` and `request.choice`, two getters, cannot do.
 */
export type AskedOf<G extends GameId> = G extends GameId ? { [K in KindOf<G>]: { kind: K; choice: ChoiceOf<G, K> } }[KindOf<G>] : never;

/** The envelope: `{ <game field>: <the game's action> }`. */
export type EnvelopeAction = v1.Action;
/** A game's action as a bot builds it (the games/* builders return these). */
export type GameActionOf<G extends GameId> = GameTypes[G]["action"];
/** A game's action in the envelope, under that game's field only: `{ glory: ... }` for Glory. */
export type EnvelopeOf<G extends GameId> = G extends GameId ? { [F in GameTypes[G]["field"]]: GameActionOf<G> } : never;
/**
 * What `Bot.act` returns: the game's action (as built by the games/* helpers, or one of `request.legalActions`), or
 * it in its envelope. Another game's envelope is no answer (the referee refuses it as malformed): any envelope typed
 * here let `{ glory: ... }` through the compiler in a `Bot<"land-and-castle">`, to be refused at run time.
 */
export type ActionOf<G extends GameId> = GameActionOf<G> | EnvelopeOf<G>;

export type Card = v1.Card__Output;
export type GameStart = v1.GameStart__Output;
export type DecisionRequest = v1.DecisionRequest__Output;
export type RefereeMessage = v1.RefereeMessage__Output;
export type BotMessage = v1.BotMessage;
export type MatchResult = v1.MatchResult__Output;
export type SeatResult = v1.SeatResult__Output;
export type EventEnvelope = v1.Event__Output;

/** The field of a game in the protocol's oneofs, as the SDK names it: "generals-war" -> "generalsWar". */
export function gameField(game: string): string {
  return game.replace(/[-_]+([a-z0-9])/g, (_, c: string) => c.toUpperCase());
}
