/**
 * ts-glory: a heuristic Glory bot written with the TypeScript SDK.
 *
 * The plan of the Python heuristic bot (sample_bots/glory_heuristic). Land in the Domain is
 * where most Glory comes from, and an attack that fails scores for the defender, so the bot:
 *
 * - heals first when low on HP: an eliminated king scores none of his Land that round;
 * - buys the most valuable Land it can afford, paying with the least Money;
 * - sends all its assassins at the weakest king;
 * - attacks only with a clear margin over the defence it expects, conquering the best Land or
 *   hitting a king it may eliminate;
 * - repels attacks with the cheapest cards that hold, and always thwarts when it can;
 * - helps a defender its cards make hold (everyone but the attacker draws back up to seven
 *   afterwards, so assistance costs little), and makes no offers;
 * - discards its least useful card, or many at once when it holds an Ace.
 *
 * It draws no random numbers: a deal is always played the same way. main.ts runs it;
 * sdk/typescript/scripts/build-bots.sh bundles main.ts into dist/main.js (scripts/setup.sh runs that).
 */

import { Bot, type CardLike as Card, glory as gl, type ChoiceOf, type Request, subsets } from "arena-sdk";

/** DP a defender adds on average from his hand: a margin against the unknown. */
const EXPECTED_DEFENCE = 16;
/** HP at or below which healing comes before anything else. */
const LOW_HP = 26;

export class GloryBot extends Bot<"glory"> {
  override name = "ts-glory";
  override version = "1.0.0";

  act(request: Request<"glory">): gl.Action {
    const view = request.view;
    const turn = request.choiceFor("turnChoice");
    if (turn) return takeTurn(turn, view);
    if (request.choiceFor("offerChoice")) return gl.offers();
    const assistChoice = request.choiceFor("assistChoice");
    if (assistChoice) return assist(assistChoice);
    const defendChoice = request.choiceFor("defendChoice");
    if (defendChoice) return defend(defendChoice, view);
    const thwart = request.choiceFor("thwartChoice");
    if (thwart) return gl.thwart(thwart.assassins.length >= thwart.required ? thwart.assassins.slice(0, thwart.required) : []);
    const more = request.choiceFor("moreAssassinsChoice");
    if (more) return gl.moreAssassins(more.assassins);
    if (request.choiceFor("startRoundChoice")) return gl.startRound();
    throw new Error(`ts-glory cannot answer a ${request.kind} decision`);
  }
}

// --- the turn ----------------------------------------------------------------------------------

function takeTurn(choice: ChoiceOf<"glory", "turnChoice">, view: gl.View): gl.Action {
  const me = view.players[view.seat]!;
  if (choice.hand.length === 0) return gl.passTurn();
  const health = descending(choice.health)[0]; // the card that heals most
  if (health && me.hp <= LOW_HP) return gl.heal(health);
  const lands = bestLands(choice.lands, gl.total(choice.treasury));
  const payment = lands.length > 0 ? smallestReaching(choice.treasury, gl.total(lands)) : null; // the least overpayment
  if (payment) return gl.buyLand(lands, payment);
  if (choice.assassins.length > 0 && choice.kingTargets.length > 0) {
    // The weakest king: least HP, then most Land to lose, then most Glory.
    const weakness = (s: number): number[] => [view.players[s]!.hp, -view.players[s]!.landValue, -view.players[s]!.glory];
    return gl.assassinate(minBy(choice.kingTargets, weakness), choice.assassins);
  }
  const attack = chooseAttack(choice, view);
  if (attack) return attack;
  // Heal when the card is not wasted on HP above 50.
  if (health && me.hp <= 50 - gl.halfUp(gl.value(health))) return gl.heal(health);
  return discard(choice, me);
}

/** The attack with the best score among those with a clear margin; null if none has one. */
function chooseAttack(choice: ChoiceOf<"glory", "turnChoice">, view: gl.View): gl.Action | null {
  if (choice.generals.length === 0) return null;
  const fighters = [...choice.generals, ...choice.soldiers];
  const power = gl.total(fighters);
  const defence = (p: gl.pb.Player__Output): number => 2 * p.domain.length + EXPECTED_DEFENCE * Math.min(1, p.handSize / 7);
  const options: { score: number; action: gl.Action }[] = [];
  for (const s of choice.conquerTargets) {
    const p = view.players[s]!;
    const lowest = Math.min(...p.domain.map(gl.value)); // the Land a conquest takes
    if (power - defence(p) > 6 && lowest >= 3) options.push({ score: 2 + 2 * lowest, action: gl.conquerLand(s, fighters) });
  }
  for (const s of choice.kingTargets) {
    const p = view.players[s]!;
    const helpers = view.players.length - 2; // any of them may assist the defender
    if (power - defence(p) - 4 * helpers > 8) {
      // Eliminating a king denies him his Land this round, and doubles our Glory.
      const kills = p.hp <= power - 2 * p.domain.length;
      options.push({ score: 5 + (kills ? p.landValue : 0), action: gl.attackKing(s, fighters) });
    }
  }
  return options.length > 0 ? minBy(options, (o) => [-o.score]).action : null;
}

/** Throw away what is least useful: the cheapest card, or with an Ace the Ace and every weak card. */
function discard(choice: ChoiceOf<"glory", "turnChoice">, me: gl.pb.Player__Output): gl.Action {
  const budget = gl.total(choice.treasury);
  const keep = (card: Card): number => {
    const v = gl.value(card);
    if (gl.isAssassin(card)) return 100;
    if (gl.isGeneral(card)) return 40 + v;
    if (gl.isLand(card)) return v <= budget + 6 ? 20 + v : v; // Land we may soon afford
    if (gl.isSoldier(card)) return 10 + v;
    if (gl.isHealth(card)) return me.hp < 30 ? 30 + v : v / 2;
    return v;
  };
  const hand = [...choice.hand].sort((a, b) => keep(a) - keep(b));
  if (choice.aces.length === 0) return gl.discard([hand[0]!]);
  const ace = minBy(choice.aces, (c) => [keep(c)]);
  return gl.discard([ace, ...hand.filter((c) => c.id !== ace.id && keep(c) < 15)]);
}

// --- other players' attacks ----------------------------------------------------------------------

function assist(choice: ChoiceOf<"glory", "assistChoice">): gl.Action {
  if (choice.playable.length === 0) return gl.declineAssist();
  // The defender's own cards come last: help him when ours make the defence hold already, with a margin.
  const cards = smallestReaching(choice.playable, choice.attackPoints - choice.defencePoints + 4);
  if (cards === null) return gl.declineAssist();
  return gl.assist(choice.defender, cards.length > 0 ? cards : [minBy(choice.playable, (c) => [gl.value(c)])]);
}

function defend(choice: ChoiceOf<"glory", "defendChoice">, view: gl.View): gl.Action {
  const need = choice.attackPoints - choice.defencePoints; // DP equal to AP repels the attack
  const cards = smallestReaching(choice.playable, need);
  if (cards !== null) return gl.defend(cards);
  // The attack gets through: against a king, spend everything if that is what keeps us alive.
  if (choice.kind === gl.AttackKind.ATTACK_KING && view.players[view.seat]!.hp <= need) return gl.defend(choice.playable);
  return gl.defend();
}

// --- choosing cards ------------------------------------------------------------------------------

/** The most valuable Land worth at most `budget` (the fewest cards on ties); empty if none. */
function bestLands(lands: readonly Card[], budget: number): Card[] {
  return bestSubset(descending(lands).slice(0, 10), (s) => (gl.total(s) <= budget ? [-gl.total(s), s.length] : null)) ?? [];
}

/** The cards of least total value (then fewest) that reach `need`: empty if nothing is needed, null if all fall short. */
function smallestReaching(cards: readonly Card[], need: number): Card[] | null {
  if (need <= 0) return [];
  return bestSubset(descending(cards).slice(0, 12), (s) => (gl.total(s) >= need ? [gl.total(s), s.length] : null));
}

/** The subset of least cost (null rules a subset out), the first found on ties. */
function bestSubset(cards: readonly Card[], cost: (subset: Card[]) => number[] | null): Card[] | null {
  let best: { subset: Card[]; cost: number[] } | null = null;
  for (const subset of subsets(cards)) {
    const c = cost(subset);
    if (c !== null && (best === null || less(c, best.cost))) best = { subset, cost: c };
  }
  return best?.subset ?? null;
}

const descending = (cards: readonly Card[]): Card[] => [...cards].sort((a, b) => gl.value(b) - gl.value(a));
/** `a` before `b`, comparing element by element. */
const less = (a: number[], b: number[]): boolean => {
  const i = a.findIndex((x, k) => x !== b[k]);
  return i >= 0 && a[i]! < b[i]!;
};
/** The item of least key, the first one on ties. */
function minBy<T>(items: readonly T[], key: (item: T) => number[]): T {
  return items.reduce((best, item) => (less(key(item), key(best)) ? item : best));
}
