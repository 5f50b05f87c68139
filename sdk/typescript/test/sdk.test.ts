/** Unit tests of the SDK: the driver's protocol logic, requests, wrapping, the wire format, the generator of random numbers. */

import assert from "node:assert/strict";
import { test } from "node:test";

import {
  type ActionOf,
  Bot,
  BotDriver,
  type CardLike,
  type GameId,
  decodeBotMessage,
  decodeRefereeMessage,
  encodeBotMessage,
  encodeRefereeMessage,
  gameField,
  generalsAndAssassins as ga,
  generalsWar as gw,
  landAndCastle as lc,
  assassination as asn,
  type GameStart,
  type MatchResult,
  randomAction,
  Rank,
  Request,
  Rng,
  subsets,
  Suit,
  wrap,
} from "arena-sdk";

/** A RefereeMessage as the SDK receives it: encoded and decoded like on the wire. */
function received(msg: Parameters<typeof encodeRefereeMessage>[0]) {
  return decodeRefereeMessage(encodeRefereeMessage(msg));
}

const START = received({ start: { matchId: "m1", game: "generals-war", seat: 1, numSeats: 2, protocolVersion: 1 } });
const card = (id: number, rank: number, suit = 1) => ({ id, rank: rank as Rank, suit: suit as Suit });

function squadRequest(requestId: number, listed: boolean) {
  return received({
    decision: {
      requestId,
      timeLeftMs: 1500,
      timeBankLeftMs: 500,
      decisionIndex: 7,
      view: { generalsWar: { seat: 1, numPlayers: 2, hand: [card(3, 4), card(4, 5)] } },
      decision: { generalsWar: { squadChoice: { playable: [card(3, 4), card(4, 5)], minCards: 1, maxCards: 2, attacking: true } } },
      legalActions: listed ? [{ generalsWar: { playSquad: { cardIds: [3] } } }, { generalsWar: { playSquad: { cardIds: [4] } } }] : [],
      legalActionsListed: listed,
    },
  });
}

class Recorder extends Bot<"generals-war"> {
  override name = "recorder";
  override version = "2.0";
  requests: Request<"generals-war">[] = [];
  rejections: string[] = [];
  events: unknown[] = [];
  result: MatchResult | null = null;
  starts: number[] = [];

  override onStart(start: GameStart): void {
    this.starts.push(start.seat);
  }

  act(request: Request<"generals-war">): ActionOf<"generals-war"> {
    this.requests.push(request);
    return gw.squad([request.choiceFor("squadChoice")?.playable[0] ?? 0]);
  }

  override onEvents(events: gw.Event[]): void {
    this.events.push(...events);
  }

  override onRejection(reason: string): void {
    this.rejections.push(reason);
  }

  override onResult(result: MatchResult): void {
    this.result = result;
  }
}

test("hello carries the match, the token, the protocol version and the bot's name", () => {
  const hello = new BotDriver(new Recorder()).hello("m1", "secret");
  assert.deepEqual(hello, { hello: { matchId: "m1", token: "secret", protocolVersion: 1, botName: "recorder", botVersion: "2.0" } });
  assert.equal(decodeBotMessage(encodeBotMessage(hello)).hello?.token, "secret");
});

test("a decision is answered with the same request id and the action in its game's envelope", async () => {
  const bot = new Recorder();
  const driver = new BotDriver(bot, undefined, () => 0); // no time passes: act is told the referee's figures as sent
  assert.deepEqual(await driver.handle(START), []);
  const replies = await driver.handle(squadRequest(12, false));
  assert.equal(replies.length, 1);
  const sent = decodeBotMessage(encodeBotMessage(replies[0]!));
  assert.equal(sent.action?.requestId, 12);
  assert.deepEqual(sent.action?.action?.generalsWar?.playSquad?.cardIds, [3]);
  const request = bot.requests[0]!;
  assert.equal(request.game, "generals-war");
  assert.equal(request.kind, "squadChoice");
  assert.equal(request.choiceFor("revealChoice"), undefined);
  assert.equal(request.choiceFor("squadChoice")?.maxCards, 2);
  assert.equal(request.legalActions, null);
  assert.equal(request.timeLeftMs, 1500);
  assert.equal(request.timeBankLeftMs, 500);
  assert.equal(request.decisionIndex, 7);
  assert.equal(request.seat, 1);
  assert.deepEqual(
    request.view.hand.map((c) => c.id),
    [3, 4],
  );
  assert.equal(request.view.defender, undefined, "an unset optional field is undefined");
});

test("asked is the decision's kind and its constraints, and a switch on its kind narrows them", () => {
  const squad = new Request<"generals-war">(squadRequest(3, false).decision!, START.start!);
  const reveal = new Request<"generals-war">(
    received({ decision: { requestId: 4, view: { generalsWar: { seat: 1 } }, decision: { generalsWar: { revealChoice: { revealable: [card(5, 9)] } } } } }).decision!,
    START.start!,
  );
  // Checked by tsc --noEmit too (tests/test_typescript.py): each case reads only its own kind's fields.
  const said = (request: Request<"generals-war">): string => {
    const asked = request.asked;
    switch (asked.kind) {
      case "squadChoice":
        // @ts-expect-error a squad's constraints have no revealable
        void asked.choice.revealable;
        return `squad of ${asked.choice.minCards}-${asked.choice.maxCards}`;
      case "revealChoice":
        return `reveal of ${asked.choice.revealable.map((c) => c.id).join(",")}`;
      default:
        return asked.kind;
    }
  };
  assert.equal(said(squad), "squad of 1-2");
  assert.equal(said(reveal), "reveal of 5");
  assert.equal(squad.asked.kind, squad.kind);
  assert.equal(squad.asked.choice, squad.choice);
});

test("listed actions are the game's actions", async () => {
  const bot = new Recorder();
  const driver = new BotDriver(bot);
  await driver.handle(START);
  await driver.handle(squadRequest(3, true));
  const listed = bot.requests[0]!.legalActions;
  assert.deepEqual(
    listed?.map((a) => a.playSquad?.cardIds),
    [[3], [4]],
  );
  assert.equal(listed?.[0]?.kind, "playSquad");
  const chosen = randomAction(bot.requests[0]!, new Rng(1));
  assert.ok(listed?.includes(chosen as (typeof listed)[number]));
});

test("a rejection is logged with the decision and the kind of action that was refused, as the Python SDK does", async () => {
  // The referee's reason ("reveal generals (possibly none) now") says what it wanted, not what the bot sent.
  const driver = new BotDriver(new Recorder());
  await driver.handle(START);
  await driver.handle(squadRequest(5, false));
  const written: string[] = [];
  const write = process.stderr.write;
  process.stderr.write = ((chunk: string) => written.push(String(chunk)) > 0) as typeof process.stderr.write;
  try {
    await driver.handle(received({ rejection: { requestId: 5, reason: "not 5" } }));
    await driver.handle(received({ rejection: { requestId: 4, reason: "not 4" } })); // not the pending request
  } finally {
    process.stderr.write = write;
  }
  assert.deepEqual(
    written.filter((line) => line.includes("action rejected")),
    [
      "[arena-sdk] WARNING action rejected: not 5 (decision 7, asked for squadChoice, answered with playSquad)\n",
      "[arena-sdk] WARNING action rejected: not 4\n",
    ],
  );
});

test("a rejection asks again up to maxRetries times, then gives up on that request, and says so to the referee", async () => {
  const bot = new Recorder();
  bot.maxRetries = 2;
  const driver = new BotDriver(bot);
  await driver.handle(START);
  await driver.handle(squadRequest(5, false));
  const reject = (requestId: number) => received({ rejection: { requestId, reason: "no" } });
  const written: string[] = [];
  const write = process.stderr.write;
  process.stderr.write = ((chunk: string) => written.push(String(chunk)) > 0) as typeof process.stderr.write;
  try {
    assert.equal((await driver.handle(reject(5)))[0]?.action?.requestId, 5);
    assert.equal((await driver.handle(reject(5)))[0]?.action?.requestId, 5);
    assert.deepEqual(await driver.handle(reject(5)), [{ giveUp: { requestId: 5 } }], "the referee need not wait out the deadline");
    assert.equal((await driver.handle(reject(5))).length, 0, "given up once");
    assert.equal((await driver.handle(reject(99))).length, 0, "a rejection of another request is not retried");
  } finally {
    process.stderr.write = write;
  }
  // Said once, so that the TIMEOUT strike that follows is explained in the bot's log.
  assert.deepEqual(
    written.filter((line) => line.includes("giving up")),
    [
      "[arena-sdk] WARNING giving up on decision 7 after 3 rejected actions (maxRetries 2): " +
        "the referee plays the default action and gives a TIMEOUT strike\n",
    ],
  );
  assert.deepEqual(bot.rejections, ["no", "no", "no", "no", "no"]);
  assert.equal(bot.requests.length, 3);
});

test("an answer the referee could not use is given up on: act is not asked again", async () => {
  const bot = new Recorder();
  const driver = new BotDriver(bot);
  await driver.handle(START);
  const error = (code: "STALE_REQUEST" | "MALFORMED_ACTION" | "UNEXPECTED_MESSAGE" | "MESSAGE_TOO_LARGE") =>
    received({ error: { code, message: "not an action" } });
  const write = process.stderr.write;
  process.stderr.write = (() => true) as typeof process.stderr.write;
  try {
    assert.equal((await driver.handle(error("MALFORMED_ACTION"))).length, 0, "nothing is pending before the first decision");
    await driver.handle(squadRequest(5, false));
    assert.equal((await driver.handle(error("STALE_REQUEST"))).length, 0, "STALE_REQUEST: an answer to another request, nothing to give up");
    assert.equal((await driver.handle(error("UNEXPECTED_MESSAGE"))).length, 0, "UNEXPECTED_MESSAGE: not an answer");
    assert.deepEqual(await driver.handle(error("MALFORMED_ACTION")), [{ giveUp: { requestId: 5 } }], "MALFORMED_ACTION");
    await driver.handle(squadRequest(6, false));
    assert.deepEqual(await driver.handle(error("MESSAGE_TOO_LARGE")), [{ giveUp: { requestId: 6 } }], "MESSAGE_TOO_LARGE");
    await driver.handle(received({ result: { seats: [] } }));
    assert.equal((await driver.handle(error("MALFORMED_ACTION"))).length, 0, "nothing is pending once the match is over");
  } finally {
    process.stderr.write = write;
  }
  assert.equal(bot.requests.length, 2);
});

test("a late answer's STALE_REQUEST is logged with its decision and how long it took, counted from its arrival", async () => {
  // The referee names the request by an id found nowhere else; arena match's table says timeout@7, by decision.
  let now = 1000;
  const bot = new (class extends Recorder {
    override act(request: Request<"generals-war">): ActionOf<"generals-war"> {
      now += 2600; // a slow think
      return super.act(request);
    }
  })();
  const driver = new BotDriver(bot, undefined, () => now);
  await driver.handle(START);
  await driver.handle(squadRequest(5, false));
  await driver.handle(squadRequest(6, false), now - 2600); // it came while act thought about request 5
  const written: string[] = [];
  const write = process.stderr.write;
  process.stderr.write = ((chunk: string) => written.push(String(chunk)) > 0) as typeof process.stderr.write;
  const stale = (id: number) => received({ error: { code: "STALE_REQUEST", message: `request ${id} is not pending: its time ran out` } });
  try {
    await driver.handle(stale(5));
    await driver.handle(stale(6));
    await driver.handle(stale(9)); // no answer of this bot's: said as the referee said it
  } finally {
    process.stderr.write = write;
  }
  assert.deepEqual(written, [
    "[arena-sdk] WARNING protocol error STALE_REQUEST: request 5 is not pending: its time ran out (decision 7: answered 2600 ms after it came, of the 1500 ms it had)\n",
    "[arena-sdk] WARNING protocol error STALE_REQUEST: request 6 is not pending: its time ran out (decision 7: answered 5200 ms after it came, of the 1500 ms it had)\n",
    "[arena-sdk] WARNING protocol error STALE_REQUEST: request 9 is not pending: its time ran out\n",
  ]);
});

test("an answer act gives past the time it had is logged as late at once, before any STALE_REQUEST", async () => {
  // A synchronous act timed out on request after request was forfeited and killed before the STALE_REQUEST came back.
  let now = 1000;
  let think = 1400;
  const bot = new (class extends Recorder {
    override act(request: Request<"generals-war">): ActionOf<"generals-war"> {
      now += think;
      return super.act(request);
    }
  })();
  const driver = new BotDriver(bot, undefined, () => now);
  await driver.handle(START);
  const written: string[] = [];
  const write = process.stderr.write;
  process.stderr.write = ((chunk: string) => written.push(String(chunk)) > 0) as typeof process.stderr.write;
  try {
    assert.equal((await driver.handle(squadRequest(5, false))).length, 1); // 1400 ms of 1500: in time, nothing said
    think = 2600;
    assert.equal((await driver.handle(squadRequest(6, false))).length, 1); // still sent: the referee says it is stale
  } finally {
    process.stderr.write = write;
  }
  assert.deepEqual(written, [
    "[arena-sdk] WARNING decision 7: act answered 2600 ms after the request came, of the 1500 ms it had: too late, the referee has timed it out\n",
  ]);
});

test("events are unwrapped to the game's events, and the result is kept", async () => {
  const bot = new Recorder();
  const driver = new BotDriver(bot);
  await driver.handle(START);
  await driver.handle(received({ events: { events: [{ seq: 4, generalsWar: { roundStarted: { round: 1, attacker: 0 } } }] } }));
  assert.deepEqual(bot.events, [{ roundStarted: { round: 1, attacker: 0 }, kind: "roundStarted" }]);
  await driver.handle(received({ error: { code: 1, message: "stale" } }));
  await driver.handle(received({ result: { matchId: "m1", seats: [{ seat: 0, rank: 1 }, { seat: 1, rank: 2 }] } }));
  assert.deepEqual(
    driver.result?.seats.map((s) => s.rank),
    [1, 2],
  );
  assert.equal(bot.result, driver.result);
  assert.deepEqual(bot.starts, [1], "onStart was told the start");
});

test("an async act is awaited", async () => {
  class Slow extends Bot<"generals-war"> {
    async act(): Promise<ActionOf<"generals-war">> {
      await new Promise((resolve) => setTimeout(resolve, 5));
      return gw.reveal();
    }
  }
  const driver = new BotDriver(new Slow());
  await driver.handle(START);
  const [reply] = await driver.handle(squadRequest(8, false));
  assert.deepEqual(reply?.action?.action, { generalsWar: { revealGenerals: { cardIds: [] } } });
});

test("wrap puts a game's action in the envelope and passes an envelope through", () => {
  assert.deepEqual(wrap(gw.target(2), "generals-war"), { generalsWar: { chooseTarget: { target: 2 } } });
  const envelope = { generalsWar: gw.reveal([1]) };
  assert.equal(wrap(envelope, "generals-war"), envelope);
  assert.equal(gameField("generals-and-assassins"), "generalsAndAssassins");
  assert.equal(gameField("glory"), "glory");
});

/** What the driver sends for a decision when `act` returns `action`, and what it logged meanwhile. */
async function answerTo(action: unknown): Promise<{ sent: ReturnType<typeof decodeBotMessage>; logged: string }> {
  class Returning extends Bot<"generals-war"> {
    act(): ActionOf<"generals-war"> {
      return action as ActionOf<"generals-war">;
    }
  }
  const driver = new BotDriver(new Returning());
  await driver.handle(START);
  const written: string[] = [];
  const write = process.stderr.write;
  process.stderr.write = ((chunk: string) => written.push(String(chunk)) > 0) as typeof process.stderr.write;
  let replies;
  try {
    replies = await driver.handle(squadRequest(9, false));
  } finally {
    process.stderr.write = write;
  }
  assert.equal(replies.length, 1);
  return { sent: decodeBotMessage(encodeBotMessage(replies[0]!)), logged: written.join("") };
}

test("an action that cannot be encoded is sent as no action, not left to fail the stream", async () => {
  // gRPC cancels a call whose message does not serialize: the bot would reconnect and send it again, over and over.
  const { sent, logged } = await answerTo({ playSquad: 7 }); // encoding threw: "playSquad: object expected"
  assert.equal(sent.action?.requestId, 9);
  assert.equal(sent.action?.action?.game, undefined, "the empty action, which the referee refuses as malformed");
  assert.match(logged, /ERROR decision 7, asked for squadChoice: act returned an action that cannot be sent as it is: generalsWar\.playSquad is 7, where an object \(arena\.v1\.generals_war\.PlaySquad\) belongs/);
});

test("a field of the wrong type is refused before sending, naming the field and what belongs there", async () => {
  // Encoded as they were, a card id "x" went as 0, "3" as 3 and a seat `true` as 1: another action than the bot's.
  const uint32 = "a whole number from 0 to 4294967295 \\(uint32\\)";
  const wrong: [unknown, string][] = [
    [gw.squad(["3", "x"] as any), `generalsWar.playSquad.cardIds\\[0\\] is the string "3", where ${uint32} belongs`],
    [gw.squad([4, "x"] as any), `generalsWar.playSquad.cardIds\\[1\\] is the string "x", where ${uint32} belongs`],
    [gw.target("1" as any), `generalsWar.chooseTarget.target is the string "1", where ${uint32} belongs`],
    [gw.target(true as any), `generalsWar.chooseTarget.target is true, where ${uint32} belongs`],
    [gw.target(1.5), `generalsWar.chooseTarget.target is 1.5, where ${uint32} belongs`],
    [gw.target(-1), `generalsWar.chooseTarget.target is -1, where ${uint32} belongs`],
    [{ playSquad: { cardIds: 3 } }, "generalsWar.playSquad.cardIds is 3, where an array belongs"],
  ];
  for (const [action, said] of wrong) {
    const { sent, logged } = await answerTo(action);
    assert.equal(sent.action?.requestId, 9);
    assert.equal(sent.action?.action?.game, undefined, `${JSON.stringify(action)}: the empty action`);
    assert.match(logged, new RegExp(`ERROR decision 7, asked for squadChoice: act returned an action that cannot be sent as it is: ${said}; sending no action`));
  }
  // What the encoding takes as it is still goes: a card id, an unset field, an enum by its name or number.
  assert.equal(wrap(gw.squad([card(3, 1)]), "generals-war").generalsWar?.playSquad?.cardIds?.[0], 3);
  assert.deepEqual(wrap({ chooseTarget: { target: undefined } }, "generals-war"), { generalsWar: { chooseTarget: { target: undefined } } });
  for (const room of ["HALL", asn.HALL]) assert.deepEqual(wrap({ movePresident: { room } }, "assassination"), { assassination: { movePresident: { room } } });
  const written: string[] = [];
  const write = process.stderr.write;
  process.stderr.write = ((chunk: string) => written.push(String(chunk)) > 0) as typeof process.stderr.write;
  try {
    assert.deepEqual(wrap({ movePresident: { room: "ATTIC" } }, "assassination"), {});
    assert.deepEqual(wrap(asn.allegiance("false" as any), "assassination"), {}); // the encoding sends "false" as true
  } finally {
    process.stderr.write = write;
  }
  assert.match(written[0]!, /assassination\.movePresident\.room is the string "ATTIC", where one of COURTYARD, .* or its number \(arena\.v1\.assassination\.Room\) belongs/);
  assert.doesNotMatch(written[0]!, /ROOM_UNSPECIFIED/, "the 0 the referee refuses is no name to send");
  assert.match(written[1]!, /assassination\.chooseAllegiance\.badCop is the string "false", where true or false \(bool\) belongs/);
});

test("a name that is no field is refused before sending, naming it and the fields that belong there", async () => {
  // Encoded as it was, `cardIdz` was dropped without a word: the referee refused a squad of no cards as illegal.
  const wrong: [unknown, string][] = [
    [{ playSquad: { cardIdz: [3] } } as any, "generalsWar.playSquad.cardIdz is no field of arena.v1.generals_war.PlaySquad, whose fields are cardIds"],
    [{ generalsWar: { chooseTarget: { target: 1, seat: 1 } } }, "generalsWar.chooseTarget.seat is no field of arena.v1.generals_war.ChooseTarget, whose fields are target"],
  ];
  for (const [action, said] of wrong) {
    const { sent, logged } = await answerTo(action);
    assert.equal(sent.action?.requestId, 9);
    assert.equal(sent.action?.action?.game, undefined, `${JSON.stringify(action)}: the empty action`);
    assert.match(logged, new RegExp(`ERROR decision 7, asked for squadChoice: act returned an action that cannot be sent as it is: ${said}; sending no action`));
  }
  const written: string[] = [];
  const write = process.stderr.write;
  process.stderr.write = ((chunk: string) => written.push(String(chunk)) > 0) as typeof process.stderr.write;
  try {
    assert.deepEqual(wrap({ passTurn: { turn: 1 } }, "glory"), {});
    // What is no field but the encoding takes: a oneof's name (a decoded action's `game` and `kind`), a name left
    // unset, and the names of an Action (another game's kind is said to be so by wrap, as before).
    const decoded = { game: "generalsWar", generalsWar: { kind: "playSquad", playSquad: { cardIds: [3], cardIdz: undefined } } };
    assert.equal(wrap(decoded, "generals-war"), decoded);
  } finally {
    process.stderr.write = write;
  }
  assert.equal(written.length, 1, written.join(""));
  assert.match(written[0]!, /glory\.passTurn\.turn is no field of arena\.v1\.glory\.PassTurn, which has no fields; sending no action/);
});

test("an action of another game, or of no kind, is sent as no action and said so, as the Python SDK does", async () => {
  // Encoded as they were, their fields (not the game's) were dropped without a word: an action of no kind went.
  for (const foreign of [{ buyLand: { landIds: [1] } }, { glory: { passTurn: {} } }, {}, { generalsWar: {} }]) {
    const { sent, logged } = await answerTo(foreign);
    assert.equal(sent.action?.action?.game, undefined, `${JSON.stringify(foreign)}: the empty action`);
    assert.match(logged, /ERROR decision 7, asked for squadChoice: act returned .*, not an action of generals-war \(one of revealGenerals, chooseTarget, playSquad\); sending no action/);
  }
  // The game's field in snake case, or a decision's kind for the action's, is told the kinds that belong.
  for (const slip of [{ generals_war: gw.reveal() }, { squadChoice: {} }]) {
    const { logged } = await answerTo(slip);
    assert.match(logged, /not an action of generals-war \(one of revealGenerals, chooseTarget, playSquad\)/, JSON.stringify(slip));
  }
  const { sent, logged } = await answerTo(gw.reveal());
  assert.equal(sent.action?.action?.generalsWar?.kind, "revealGenerals", "an action with no cards is an action");
  assert.equal(logged, "");
});

test("an action with several kinds set is sent as no action, the error naming them", async () => {
  // Only warned about, it went as one of them (the encoding's pick, not the bot's): refused as an action of no single
  // kind is, as the Python SDK refuses what is not one action of the game. A second kind misspelled is a kind too.
  const several: [unknown, string][] = [
    [{ ...gw.squad([3]), ...gw.target(1) }, "2 kinds set \\(playSquad, chooseTarget\\)"],
    [{ generalsWar: { ...gw.squad([3]), ...gw.reveal([4]) } }, "2 kinds set \\(playSquad, revealGenerals\\)"],
    [{ ...gw.squad([3]), chooseTargett: { target: 1 } }, "2 kinds set \\(playSquad, chooseTargett\\)"],
    [{ kind: "playSquad", ...gw.squad([3]), ...gw.target(1), ...gw.reveal() }, "3 kinds set \\(playSquad, chooseTarget, revealGenerals\\)"],
  ];
  for (const [action, said] of several) {
    const { sent, logged } = await answerTo(action);
    assert.equal(sent.action?.requestId, 9);
    assert.equal(sent.action?.action?.game, undefined, `${JSON.stringify(action)}: the empty action`);
    assert.match(logged, new RegExp(`ERROR decision 7, asked for squadChoice: act returned an action with ${said}; exactly one is needed; sending no action`));
  }
  // A kind left unset is no kind: a decoded action names its kind, and the others may be there, undefined.
  const { sent, logged } = await answerTo({ kind: "chooseTarget", chooseTarget: { target: 1 }, playSquad: undefined });
  assert.equal(sent.action?.action?.generalsWar?.kind, "chooseTarget");
  assert.equal(logged, "");
});

test("act is typed to its own game's actions and envelope, not another game's", () => {
  // ActionOf took any envelope: `{ glory: ... }` from a Bot<"land-and-castle"> passed the compiler and was refused at
  // run time. Checked by tsc --noEmit (tests/test_typescript.py): an unused @ts-expect-error fails it.
  class Lc extends Bot<"land-and-castle"> {
    act(): ActionOf<"land-and-castle"> {
      // @ts-expect-error another game's envelope is no answer in this game
      return { glory: { passTurn: {} } };
    }
  }
  const own: ActionOf<"land-and-castle">[] = [lc.control(0), { landAndCastle: lc.control(0) }];
  const anyGame: ActionOf<GameId> = { glory: { passTurn: {} } }; // a plain Bot plays every game
  assert.deepEqual([(new Lc().act() as Record<string, unknown>).glory, own.length, "glory" in anyGame], [{ passTurn: {} }, 2, true]);
});

test("what act returns that is no object is sent as no action, and the bot plays on", async () => {
  // As the Python SDK does (tests/test_session.py): `"generalsWar" in 7` threw a TypeError, which ends the bot.
  for (const slip of [undefined, null, 7, "playSquad"]) {
    const { sent, logged } = await answerTo(slip);
    assert.equal(sent.action?.requestId, 9);
    assert.equal(sent.action?.action?.game, undefined, `${String(slip)}: the empty action`);
    assert.match(logged, /ERROR decision 7, asked for squadChoice: act returned .*, not an action/);
  }
  // A string quoted, as the Python SDK's repr: "act returned playSquad, not an action" read as if one had been.
  assert.match((await answerTo("playSquad")).logged, /ERROR decision 7, asked for squadChoice: act returned "playSquad", not an action;/);
});

test("the generator is seeded, and its draws stay in range", () => {
  const a = new Rng("42");
  const b = new Rng(42);
  const draws = Array.from({ length: 50 }, () => a.random());
  assert.deepEqual(
    draws,
    Array.from({ length: 50 }, () => b.random()),
  );
  assert.ok(draws.every((x) => x >= 0 && x < 1));
  assert.notDeepEqual(draws, Array.from({ length: 50 }, () => new Rng(43).random()));
  const rng = new Rng(7);
  for (let i = 0; i < 200; i++) {
    const n = rng.randint(2, 4);
    assert.ok(n >= 2 && n <= 4);
    const picked = rng.sample([1, 2, 3, 4, 5], 3);
    assert.equal(new Set(picked).size, 3);
  }
  assert.throws(() => rng.choice([]));
});

test("64-bit ids survive the wire as numbers", () => {
  const msg = received({ decision: { requestId: 2 ** 40 + 3, decisionIndex: 9 } });
  assert.equal(msg.decision?.requestId, 2 ** 40 + 3);
  const request = new Request(msg.decision!, START.start!);
  assert.equal(request.requestId, 2 ** 40 + 3);
});

test("subsets come by size, each size in the order of the items, as Python's itertools.combinations", () => {
  assert.deepEqual([...subsets([1, 2, 3])], [[1], [2], [3], [1, 2], [1, 3], [2, 3], [1, 2, 3]]);
  assert.deepEqual([...subsets([])], []);
  // A purchase lists lands first, then the coins that pay for them, in that order too.
  const coins: CardLike[] = [{ id: 1, rank: Rank.TWO, suit: Suit.DIAMONDS }, { id: 2, rank: Rank.THREE, suit: Suit.DIAMONDS }];
  const lands: CardLike[] = [{ id: 3, rank: Rank.TWO, suit: Suit.SPADES }, { id: 4, rank: Rank.THREE, suit: Suit.SPADES }];
  const bought = ga.purchases(coins, lands);
  assert.deepEqual(
    bought.map(([coins, lands]) => [coins.map((c) => c.id), lands.map((c) => c.id)]),
    [[[1], [3]], [[2], [3]], [[1, 2], [3]], [[2], [4]], [[1, 2], [4]], [[1, 2], [3, 4]]],
  );
});

test("card helpers read a rank and suit given as numbers, as names, or as received; nonsense throws", () => {
  const rank: number = 5;
  const suit: number = Suit.CLUBS;
  const byNumber: CardLike = { id: 4, rank, suit };
  const byName: CardLike = { id: 4, rank: "FIVE", suit: "CLUBS" };
  assert.equal(lc.armyValue(byNumber), 5);
  assert.equal(lc.armyValue(byName), 5);
  assert.equal(lc.total(byName, { rank: "SEVEN", suit: "CLUBS" }, null, { rank: 2, suit: Suit.CLUBS }, true), 5 + 7 + 3);
  assert.equal(lc.isFace({ rank: "QUEEN", suit: "HEARTS" }), true);
  assert.equal(gw.power({ rank: "KING" }), 13);
  assert.equal(gw.power({}), 0);
  assert.throws(() => lc.armyValue({ rank: 15, suit: 1 }), /not a card rank: 15 \(a whole number from 0 to 14, or one of .*ACE, TWO/);
  assert.throws(() => lc.armyValue({ rank: "FIFTEEN" as never, suit: 1 }), /not a card rank: "FIFTEEN"/);
  assert.throws(() => lc.stacks({ rank: 2, suit: 9 }, { rank: 3, suit: 1 }), /not a card suit: 9 \(a whole number from 0 to 4, or one of .*CLUBS/);
});

test("offerLands leaves out a seat offered no land, as Python's offer_lands does: the referee refuses an offer of nothing", () => {
  const land = card(7, 5, Suit.SPADES);
  const want = { offerLands: { offers: [{ seat: 2, landIds: [7] }] } };
  assert.deepEqual(ga.offerLands({ 2: [land], 1: [] }), want);
  assert.deepEqual(ga.offerLands(new Map([[1, []], [2, [7]]])), want);
  assert.deepEqual(ga.offerLands(), { offerLands: { offers: [] } });
});

test("every enum of a game's protocol is exported by its helpers", () => {
  assert.equal(asn.PresidentStatus.KILLED, asn.pb.PresidentStatus.KILLED);
  assert.equal(asn.RoundOutcome, asn.pb.RoundOutcome);
  assert.equal(ga.RoundEndReason, ga.pb.RoundEndReason);
  assert.equal(gw.EliminationReason, gw.pb.EliminationReason);
});

test("the helpers export what the Python SDK's do: card constants, the board's names, cardOf", () => {
  for (const game of [asn, ga, gw, lc]) assert.deepEqual([game.ACE, game.JACK, game.JOKER, game.CLUBS, game.SPADES], [1, 11, 14, 1, 4]);
  assert.equal(asn.COURTYARD, asn.Room.COURTYARD);
  assert.equal(asn.STAY, asn.Direction.STAY);
  assert.equal(asn.step(asn.OPPOSITE.get(asn.UP)! === asn.DOWN ? asn.HALL : asn.TOWER, asn.DOWN), asn.PUBLIC_EXIT);
  assert.deepEqual(asn.DELTA.get(asn.LEFT), [0, -1]);
  const battle = { land: null, army: { id: 3, rank: 5, suit: 1 } };
  assert.equal(lc.cardOf(battle, "land"), null);
  assert.equal(lc.cardOf(battle, "army")?.id, 3);
});

test("each decision gets its own retries, and a rejection of another request is not answered", async () => {
  // As tests/test_sdk_driver.py checks of the Python SDK.
  const bot = new Recorder();
  const driver = new BotDriver(bot, 1); // the driver's maxRetries over the bot's (3)
  await driver.handle(START);
  const reject = (requestId: number) => received({ rejection: { requestId, reason: `not ${requestId}` } });
  const written: string[] = [];
  const write = process.stderr.write;
  process.stderr.write = ((chunk: string) => written.push(String(chunk)) > 0) as typeof process.stderr.write;
  try {
    const answered = [];
    for (const msg of [squadRequest(5, false), reject(5), reject(5), reject(4)]) answered.push(Object.keys((await driver.handle(msg))[0] ?? {}));
    assert.deepEqual(answered, [["action"], ["action"], ["giveUp"], []]);
    // A new decision: asked again after its first rejection, though the last one had used its retries up.
    assert.equal((await driver.handle(squadRequest(6, false)))[0]?.action?.requestId, 6);
    const again = [];
    for (const msg of [reject(5), reject(6), reject(6), reject(6)]) again.push(Object.keys((await driver.handle(msg))[0] ?? {}));
    assert.deepEqual(again, [[], ["action"], ["giveUp"], []]);
  } finally {
    process.stderr.write = write;
  }
  assert.deepEqual(bot.requests.map((r) => r.requestId), [5, 5, 6, 6]);
  assert.deepEqual(bot.rejections, ["not 5", "not 5", "not 4", "not 5", "not 6", "not 6", "not 6"]);
  assert.equal(written.filter((line) => line.includes("giving up")).length, 2, "said once for each decision");
});

test("events folded into a decision request reach onEvents before act", async () => {
  const seen: string[] = [];
  class Watcher extends Recorder {
    override onEvents(events: gw.Event[]): void {
      seen.push(`events:${events.map((e) => e.kind).join(",")}`);
    }
    override act(request: Request<"generals-war">): ActionOf<"generals-war"> {
      seen.push("act");
      return super.act(request);
    }
  }
  const driver = new BotDriver(new Watcher());
  await driver.handle(START);
  const request = squadRequest(4, false);
  const folded = received({ events: { events: [{ seq: 0, generalsWar: { roundStarted: { round: 1 } } }, { seq: 1, generalsWar: { targetChosen: { target: 0 } } }] } });
  request.decision!.events = folded.events!;
  assert.equal((await driver.handle(request)).length, 1);
  assert.deepEqual(seen, ["events:roundStarted,targetChosen", "act"]);
});

test("a field the referee left at its default is there, as the types say: 0, an empty list, false", () => {
  const msg = received({ decision: { requestId: 1, view: { generalsWar: { seat: 0 } }, decision: { generalsWar: { revealChoice: {} } } } });
  const request = new Request<"generals-war">(msg.decision!, START.start!);
  assert.equal(request.decisionIndex, 0);
  assert.equal(request.timeBankLeftMs, 0);
  assert.deepEqual(request.view.hand, []);
  assert.deepEqual(request.choiceFor("revealChoice")?.revealable, []);
  assert.equal(request.legalActions, null);
  assert.deepEqual(msg.decision?.events?.events ?? [], []);
});

test("timeLeftMs is what is left when act is called, not what the referee sent (as in the Python SDK)", async () => {
  // The referee counts from when it sent the request; one that waited in the SDK (behind an answer still awaited, or
  // through earlier tries) has less: the move time goes first, the bank after it. The referee's figure stays in raw.
  let now = 100_000;
  const bot = new Recorder();
  const driver = new BotDriver(bot, undefined, () => now);
  await driver.handle(START);
  await driver.handle(squadRequest(1, false), 99_750); // came 250 ms ago: 1500 - 250, the bank untouched
  now = 101_000;
  const write = process.stderr.write;
  process.stderr.write = (() => true) as typeof process.stderr.write;
  try {
    await driver.handle(received({ rejection: { requestId: 1, reason: "no" } })); // 1250 ms after it came
  } finally {
    process.stderr.write = write;
  }
  await driver.handle(squadRequest(2, false), 99_000); // waited 2 s, more than it had
  await driver.handle(squadRequest(3, false)); // no arrival given: it came now
  assert.deepEqual(
    bot.requests.map((r) => [r.requestId, r.timeLeftMs, r.timeBankLeftMs, r.waitedMs]),
    [
      [1, 1250, 500, 250],
      [1, 250, 250, 1250],
      [2, 0, 0, 2000],
      [3, 1500, 500, 0],
    ],
  );
  assert.equal(bot.requests[2]!.raw.timeLeftMs, 1500);
});

test("after a late answer, a request that fires at once after the SDK handled an event batch is still bounded", async () => {
  // As the Python SDK times each read from when it was done with the message before, its hooks included: a batch's
  // onEvents taking 2 ms does not make the request behind it look as if it came after the late answer.
  let now = 100_000;
  class Slow extends Recorder {
    override act(request: Request<"generals-war">): ActionOf<"generals-war"> {
      if (request.requestId === 1) now += 2000; // 500 ms past its 1500
      return super.act(request);
    }

    override onEvents(): void {
      now += 2;
    }
  }
  const bot = new Slow();
  const driver = new BotDriver(bot, undefined, () => now);
  const arrive = async (msg: ReturnType<typeof received>) => {
    await driver.handle(msg, driver.cameAt(msg, now));
    driver.done(); // the client's part: its replies are sent
  };
  await arrive(START);
  await arrive(squadRequest(1, false));
  assert.equal(driver.lateSince, 101_500);
  await arrive(received({ events: { events: [] } }));
  await arrive(squadRequest(2, false)); // taken as come at 101 500: 502 ms before act
  assert.deepEqual(bot.requests.map((r) => [r.requestId, r.waitedMs]), [[1, 0], [2, 502]]);
  assert.equal(driver.lateSince, null, "request 2 was answered in time");
});
