/**
 * ts-random: plays every game with the TypeScript SDK.
 *
 * Random legal play: a listed action when the referee lists them, otherwise one sampled from the
 * decision's constraints. The other sample_bots/typescript_* bots play one game each to win.
 *
 * With `--sample-only` (for the SDK's tests) it ignores listed actions and samples every action
 * from the decision's constraints.
 *
 * main.ts runs it; sdk/typescript/scripts/build-bots.sh bundles main.ts into dist/main.js
 * (scripts/setup.sh runs that).
 */

import { type ActionOf, Bot, type GameId, type GameStart, randomAction, type Request, Rng, SAMPLERS } from "arena-sdk";

export class TsRandomBot extends Bot {
  override name = "ts-random";
  override version = "1.0.0";
  rng: Rng;

  constructor(
    readonly seed?: number | string,
    readonly sampleOnly = false,
  ) {
    super();
    this.rng = new Rng(seed ?? process.env.ARENA_BOT_SEED);
  }

  // A process that plays several matches in a row is handed each one's seed (the SDK sets ARENA_BOT_SEED):
  // play each as a fresh process would, so that a match seed replays the same match either way.
  override onStart(start: GameStart): void {
    if (this.seed === undefined && !start.resumed && process.env.ARENA_BOT_SEED) this.rng = new Rng(process.env.ARENA_BOT_SEED);
  }

  act(request: Request): ActionOf<GameId> {
    if (this.sampleOnly) return SAMPLERS[request.game](request, this.rng) as ActionOf<GameId>;
    return randomAction(request, this.rng);
  }
}
