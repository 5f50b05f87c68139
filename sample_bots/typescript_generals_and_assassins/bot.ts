/**
 * ts-generals-and-assassins: a heuristic Generals & Assassins bot written with the TypeScript SDK.
 *
 * The plan of the Python heuristic bot (sample_bots/generals_and_assassins_heuristic). Land in
 * front of a king at the end of a round is his VP, and a king brought to 0 HP loses it to whoever
 * defeated him, so each turn, in order, the bot:
 *
 * - takes a kill that looks safe, by assassin or by attack: the fallen king's land becomes its VP;
 * - buys the most land it can, for the least money;
 * - heals when hurt;
 * - spends one of two assassins (the other is kept to block with);
 * - strikes when its force clearly beats the target's likely defence;
 * - otherwise discards its least useful card (with an ace, every card it does not want).
 *
 * It defends with the cheapest cards that stop an attack (all of them when none do), always blocks
 * an assassin and tries again with a second one, offers no land, assists whichever side offers it
 * land, and otherwise helps a rich defender about to fall so that nobody else takes his land.
 *
 * It draws no random numbers: a deal is always played the same way. main.ts runs it;
 * sdk/typescript/scripts/build-bots.sh bundles main.ts into dist/main.js (scripts/setup.sh runs that).
 */

import { Bot, type Card, generalsAndAssassins as ga, type ChoiceOf, type Request, subsets } from "arena-sdk";

type Player = ga.pb.Player__Output;

const MAX_HP = 50;
/** What an unseen card in an opponent's hand adds to his defence, roughly. */
const DEFENCE_PER_CARD = 2.5;

export class GeneralsAndAssassinsBot extends Bot<"generals-and-assassins"> {
  override name = "ts-generals-and-assassins";
  override version = "1.0.0";

  act(request: Request<"generals-and-assassins">): ga.Action {
    const turn = request.choiceFor("turnChoice");
    if (turn) return playTurn(request.view, turn);
    const assist = request.choiceFor("assistChoice");
    if (assist) return chooseAssist(request.view, request.seat, assist);
    const defence = request.choiceFor("defenceChoice");
    if (defence) return defend(defence);
    const assassin = request.choiceFor("assassinChoice");
    if (assassin) return assassin.assassins[0] ? ga.playAssassin(assassin.assassins[0]) : ga.decline(); // block, and try again
    if (request.kind === "offerChoice") return ga.offerLands(); // land given away is VP lost
    if (request.kind === "nextRoundChoice") return ga.startRound();
    throw new Error(`ts-generals-and-assassins cannot answer a ${request.kind} decision`);
  }
}

function playTurn(view: ga.View, turn: ChoiceOf<"generals-and-assassins", "turnChoice">): ga.Action {
  const at = (seat: number): Player => view.players[seat]!;
  const fighters = [...turn.generals, ...turn.soldiers];
  const force = ga.total(fighters);
  const margin = (seat: number): number => force - likelyDefence(at(seat));
  const richestFirst = [...turn.targets].sort((a, b) => at(b).landValue - at(a).landValue);

  // 1. A kill: the fallen king's land VP become ours. An assassin takes 25 HP; it is safe when the
  //    target's two jokers are spent or we hold a second one, and worth the gamble on a rich target.
  const [assassin] = turn.assassins;
  if (assassin) {
    const kill = richestFirst.find((t) => {
      const p = at(t);
      return p.hp <= 25 && (jokersSpent(p) === 2 || turn.assassins.length === 2 || p.landValue >= 4);
    });
    if (kill !== undefined) return ga.assassinate(kill, assassin);
  }
  if (turn.generals.length > 0) {
    const kill = richestFirst.find((t) => margin(t) >= at(t).hp);
    if (kill !== undefined) return ga.attack(kill, fighters);
  }

  // 2. Land is victory points.
  const purchase = bestPurchase(turn.money, turn.land);
  if (purchase) return ga.buyLand(...purchase);

  // 3. Heal when hurt (a heart that would mostly overflow waits, unless HP are low).
  const heart = maxBy(turn.health, ga.value);
  if (heart && (turn.hp <= 25 || turn.hp + ga.value(heart) <= MAX_HP)) return ga.heal(heart);

  // 4. Assassins come in pairs: spend one while the second is kept to block with.
  if (assassin && turn.assassins.length === 2) {
    const target = maxBy(turn.targets, (t) => [at(t).landValue, -at(t).hp])!;
    return ga.assassinate(target, assassin);
  }

  // 5. Strike when the force clearly beats the likely defence.
  if (turn.generals.length > 0) {
    const target = maxBy(turn.targets, (t) => [margin(t), at(t).landValue])!;
    if (margin(target) >= 12) return ga.attack(target, fighters);
  }

  // 6. Discard what is least useful; an ace takes every unwanted card with it.
  return discard(turn.hand, turn.hp);
}

/** Jokers of this player's deck already in his discard pile: he cannot block with those. */
const jokersSpent = (player: Player): number => player.discard.filter(ga.isAssassin).length;

/** Lands add 2 DP each; each card in hand might be a defender. */
const likelyDefence = (player: Player): number => 2 * player.lands.length + DEFENCE_PER_CARD * player.handSize;

/** The most land value for the least money, as [coins, lands]; null when no land is affordable. */
function bestPurchase(money: readonly Card[], land: readonly Card[]): [Card[], Card[]] | null {
  return maxBy(ga.purchases(money, land), ([coins, lands]) => [ga.total(lands), -ga.total(coins)]) ?? null;
}

/** How much the bot wants to keep a card: assassins most, then what buys land, then health it can use, generals, soldiers. */
function usefulness(card: Card, hp: number): number {
  const v = ga.value(card);
  if (ga.isAssassin(card)) return 100;
  if (ga.isMoney(card) || ga.isLand(card)) return 50 + v;
  if (ga.isGeneral(card)) return 30 + v;
  if (ga.isHealth(card)) return hp + v <= MAX_HP ? 40 + v : 5 + v / 10; // a heart that would overflow is nearly worthless
  return 10 + v; // a soldier
}

function discard(hand: readonly Card[], hp: number): ga.Action {
  const ace = minBy(hand.filter(ga.isAce), (c) => usefulness(c, hp));
  if (ace) return ga.discard([ace, ...hand.filter((c) => c.id !== ace.id && usefulness(c, hp) < 30)]);
  return ga.discard([minBy(hand, (c) => [usefulness(c, hp), c.id])!]);
}

/** Assist the side that offered us the most land; else shore up a rich defender who may fall to someone else. */
function chooseAssist(view: ga.View, me: number, choice: ChoiceOf<"generals-and-assassins", "assistChoice">): ga.Action {
  const battle = view.battle;
  if (choice.cards.length === 0 || !battle) return ga.decline();
  const offered = { [ga.ATTACKER]: 0, [ga.DEFENDER]: 0 };
  for (const offer of battle.offers) {
    if (offer.toSeat === me) offered[offer.fromSeat === choice.attacker ? ga.ATTACKER : ga.DEFENDER] += ga.total(offer.lands);
  }
  const side = offered[ga.DEFENDER] > offered[ga.ATTACKER] ? ga.DEFENDER : ga.ATTACKER;
  if (offered[side] > 0) return ga.assist(side, minBy(choice.cards, ga.value)!);
  const defender = view.players[choice.defender]!;
  const threat = battle.attackPoints - battle.defencePoints - DEFENCE_PER_CARD * defender.handSize;
  if (threat >= defender.hp - 10 && defender.landValue > 0) return ga.assist(ga.DEFENDER, maxBy(choice.cards, ga.value)!);
  return ga.decline();
}

/** The cheapest cards (least value, then fewest) that stop the attack; all of them when none do, to soften it. */
function defend(choice: ChoiceOf<"generals-and-assassins", "defenceChoice">): ga.Action {
  const need = choice.attackPoints - choice.defencePoints;
  if (need <= 0 || choice.cards.length === 0) return ga.defend();
  let best: Card[] | null = null;
  for (const cards of subsets(choice.cards)) {
    if (ga.total(cards) >= need && (best === null || ga.total(cards) < ga.total(best))) best = cards;
  }
  return ga.defend(best ?? choice.cards);
}

// --- helpers ---------------------------------------------------------------------

/** The first item with the greatest key (keys compared in order, as tuples); undefined for none. */
function maxBy<T>(items: readonly T[], key: (item: T) => number | number[]): T | undefined {
  let best: T | undefined;
  let bestKey: number[] = [];
  for (const item of items) {
    const k = [key(item)].flat();
    if (best === undefined || compare(k, bestKey) > 0) [best, bestKey] = [item, k];
  }
  return best;
}

function minBy<T>(items: readonly T[], key: (item: T) => number | number[]): T | undefined {
  return maxBy(items, (item) => [key(item)].flat().map((k) => -k));
}

function compare(a: readonly number[], b: readonly number[]): number {
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return a[i]! - b[i]!;
  return 0;
}
