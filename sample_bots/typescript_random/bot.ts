/**
 * ts-random: plays every game with the TypeScript SDK.
 *
 * Random legal play (a listed action when the referee lists them, otherwise one sampled from the
 * decision's constraints), with General's War played by the greedy bot's rules: reveal every
 * general, attack with the strongest single card that is not an ace, defend with the cheapest
 * squad that beats the attack's likely power.
 *
 * With `--sample-only` (for the SDK's tests) it ignores listed actions and samples every action
 * from the decision's constraints, and plays General's War at random too.
 *
 * main.ts runs it; sdk/typescript/scripts/build-bots.sh bundles main.ts into dist/main.js
 * (scripts/setup.sh runs that).
 */

import { type ActionOf, Bot, type GameId, type GameStart, generalsWar as gw, randomAction, Rank, Request, Rng, SAMPLERS } from "arena-sdk";

type Card = { id: number; rank: number };

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
    if (request.is("generals-war")) return this.generalsWar(request);
    return randomAction(request, this.rng);
  }

  generalsWar(request: Request<"generals-war">): gw.Action {
    const reveal = request.choiceFor("revealChoice");
    if (reveal) return gw.reveal(reveal.revealable);
    const target = request.choiceFor("targetChoice");
    if (target) {
      // Fight the opponent closest to elimination.
      const players = request.view.players;
      const score = (s: number): [number, number] => [players[s]?.defeatPoints ?? 0, -(players[s]?.deckSize ?? 0)];
      const best = [...target.targets].sort((a, b) => score(b)[0] - score(a)[0] || score(b)[1] - score(a)[1])[0];
      return best === undefined ? randomAction(request, this.rng) : gw.target(best);
    }
    const squad = request.choiceFor("squadChoice");
    if (!squad || squad.playable.length === 0) return randomAction(request, this.rng);
    const nonAces = squad.playable.filter((c) => c.rank !== Rank.ACE);
    const soldiers = (nonAces.length ? nonAces : [...squad.playable]).sort((a, b) => a.rank - b.rank);
    if (squad.attacking) return gw.squad([soldiers[soldiers.length - 1] as Card]);
    const expected = expectedAttack(request, squad.opposingSquadSize);
    let cheapest: Card[] | null = null;
    const sum = (cards: Card[]): number => cards.reduce((t, c) => t + c.rank, 0);
    for (const combo of combinations(soldiers, Math.min(squad.maxCards, soldiers.length))) {
      const total = sum(combo);
      if (total > expected && (cheapest === null || combo.length < cheapest.length || (combo.length === cheapest.length && total < sum(cheapest)))) {
        cheapest = combo;
      }
    }
    return gw.squad(cheapest ?? [soldiers[0] as Card]);
  }
}

/** The attacker's squad power if each face-down card is an average unseen card. */
function expectedAttack(request: Request<"generals-war">, size: number): number {
  const view = request.view;
  const attacker = view.players[view.attacker];
  if (!attacker) return 7 * size;
  const known = [...attacker.dead, ...attacker.conquest];
  const totalCards = 13 * attacker.suits.length;
  const knownSum = known.reduce((t, c) => t + c.rank, 0);
  const unseen = Math.max(1, totalCards - new Set(known.map((c) => c.id)).size);
  return ((7 * totalCards - knownSum) / unseen) * size;
}

/** Every non-empty combination of at most `most` items, smallest first. */
function* combinations<T>(items: readonly T[], most: number): Generator<T[]> {
  for (let size = 1; size <= most; size++) {
    const pick = (start: number, chosen: T[]): T[][] =>
      chosen.length === size ? [chosen] : items.slice(start).flatMap((item, i) => pick(start + i + 1, [...chosen, item]));
    yield* pick(0, []);
  }
}
