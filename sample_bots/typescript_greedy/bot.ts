/**
 * ts-greedy: a heuristic General's War bot written with the TypeScript SDK.
 *
 * The plan of the Python greedy bot (sample_bots/generals_war_greedy). At the end of a round a
 * seat counts the cards it won and those still in its hand, and a lost squad goes to the dead
 * pile for good, so the bot risks as few cards as it can:
 *
 * - it reveals every general: each one draws five more cards, to fight with and to count;
 * - with four players it attacks the opponent closest to elimination;
 * - it keeps its aces out of squads while it has other cards: an ace that dies is a dead general;
 * - it attacks with its single strongest card: losing costs one card, and beating it costs the
 *   defender several;
 * - it defends with the fewest, then weakest, cards that beat the attack's likely power, and
 *   gives up its single weakest card when nothing would.
 *
 * It draws no random numbers: a deal is always played the same way. main.ts runs it;
 * sdk/typescript/scripts/build-bots.sh bundles main.ts into dist/main.js (scripts/setup.sh runs that).
 */

import { Bot, generalsWar as gw, Rank, type Request, subsets } from "arena-sdk";

type Card = { id: number; rank: number };

export class GreedyBot extends Bot<"generals-war"> {
  override name = "ts-greedy";
  override version = "1.0.0";

  act(request: Request<"generals-war">): gw.Action {
    const reveal = request.choiceFor("revealChoice");
    if (reveal) return gw.reveal(reveal.revealable);
    const target = request.choiceFor("targetChoice");
    if (target) return gw.target(closestToElimination(request.view, target.targets));
    const squad = request.choiceFor("squadChoice");
    if (!squad) throw new Error(`ts-greedy cannot answer a ${request.kind} decision`);
    const soldiers = squad.playable.filter((c) => c.rank !== Rank.ACE);
    const cards = (soldiers.length > 0 ? soldiers : [...squad.playable]).sort((a, b) => power(a) - power(b));
    if (squad.attacking) return gw.squad([cards.at(-1)!]);
    const beats = cheapestAbove(cards, squad.maxCards, likelyAttack(request.view, squad.opposingSquadSize));
    return gw.squad(beats ?? [cards[0]!]);
  }
}

const power = (card: Card): number => gw.power(card);
const total = (cards: readonly Card[]): number => cards.reduce((sum, c) => sum + power(c), 0);

/** The target with the most defeat points, then the smallest deck: one more lost round may finish it. */
function closestToElimination(view: gw.View, targets: readonly number[]): number {
  const rank = (seat: number): [number, number] => [view.players[seat]?.defeatPoints ?? 0, -(view.players[seat]?.deckSize ?? 0)];
  return targets.reduce((best, seat) => {
    const [a, b] = [rank(seat), rank(best)];
    return a[0] > b[0] || (a[0] === b[0] && a[1] > b[1]) ? seat : best;
  });
}

/**
 * The attacking squad's power if each face-down card is worth the average of the attacker's cards
 * not yet seen: his suits, less the cards face up in his dead and conquest piles.
 */
function likelyAttack(view: gw.View, size: number): number {
  const attacker = view.players[view.attacker];
  if (!attacker) return 7 * size; // an average card of a full suit
  const seen = [...attacker.dead, ...attacker.conquest];
  const cards = 13 * attacker.suits.length;
  const unseen = Math.max(1, cards - seen.length);
  return ((7 * cards - total(seen)) / unseen) * size; // a suit's powers add up to 91, 7 a card
}

/** The squad of at most `most` cards with power above `needed`: fewest cards first, then least power; null if none. */
function cheapestAbove(cards: readonly Card[], most: number, needed: number): Card[] | null {
  let best: Card[] | null = null;
  for (const squad of subsets(cards)) {
    if (squad.length > most) break; // subsets come smallest first
    if (total(squad) <= needed) continue;
    if (best === null || squad.length < best.length || (squad.length === best.length && total(squad) < total(best))) best = squad;
  }
  return best;
}
