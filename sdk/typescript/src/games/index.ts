/** Per-game helpers: action builders and a legal random action for every decision kind. */

import type { Request } from "../bot.js";
import type { Rng } from "../rng.js";
import type { GameActionOf, GameId } from "../types.js";
import * as assassination from "./assassination.js";
import * as generalsAndAssassins from "./generalsAndAssassins.js";
import * as generalsWar from "./generalsWar.js";
import * as glory from "./glory.js";
import * as landAndCastle from "./landAndCastle.js";

export { assassination, generalsAndAssassins, generalsWar, glory, landAndCastle };

/** Each game's `sample(request, rng)`: a legal action from the decision's constraints alone. */
export const SAMPLERS: Record<GameId, (request: Request<any>, rng: Rng) => unknown> = {
  "generals-war": generalsWar.sample,
  "generals-and-assassins": generalsAndAssassins.sample,
  glory: glory.sample,
  "land-and-castle": landAndCastle.sample,
  assassination: assassination.sample,
};

/** A legal action chosen at random: from the listed actions, or sampled from the decision's constraints. */
export function randomAction<G extends GameId>(request: Request<G>, rng: Rng): GameActionOf<G> {
  const listed = request.legalActions;
  if (listed && listed.length) return rng.choice(listed) as GameActionOf<G>;
  const sampler = SAMPLERS[request.game as GameId];
  if (!sampler) throw new Error(`no sampler for game ${request.game}; this SDK knows ${Object.keys(SAMPLERS).join(", ")}`);
  return sampler(request, rng) as GameActionOf<G>;
}
