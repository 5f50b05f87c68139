/** A bot's note on a decision (`request.note`): sent with that decision's answer only. */

import assert from "node:assert/strict";
import { test } from "node:test";

import { type ActionOf, Bot, BotDriver, decodeBotMessage, decodeRefereeMessage, encodeBotMessage, encodeRefereeMessage, generalsWar as gw, type Request } from "arena-sdk";

function received(msg: Parameters<typeof encodeRefereeMessage>[0]) {
  return decodeRefereeMessage(encodeRefereeMessage(msg));
}

const START = received({ start: { matchId: "m1", game: "generals-war", seat: 0, numSeats: 2, protocolVersion: 1 } });

function request(requestId: number) {
  return received({
    decision: {
      requestId,
      decisionIndex: requestId,
      view: { generalsWar: { seat: 0, numPlayers: 2 } },
      decision: { generalsWar: { revealChoice: {} } },
    },
  });
}

class Noting extends Bot<"generals-war"> {
  act(request: Request<"generals-war">): ActionOf<"generals-war"> {
    if (request.decisionIndex === 1) {
      request.note("a first thought");
      request.note(`why: decision ${request.decisionIndex}`);
    }
    return gw.reveal();
  }
}

test("a note goes with the answer of its own decision, the last one given, and with no other", async () => {
  const driver = new BotDriver(new Noting());
  await driver.handle(START);
  const [first] = await driver.handle(request(1));
  const [second] = await driver.handle(request(2));
  const sent = [first, second].map((m) => decodeBotMessage(encodeBotMessage(m!)));
  assert.equal(sent[0]?.action?.note, "why: decision 1");
  assert.equal(sent[1]?.action?.note, "");
  assert.equal(sent[1]?.action?.requestId, 2);
});

class Rambling extends Bot<"generals-war"> {
  constructor(private readonly text: string) {
    super();
  }

  act(request: Request<"generals-war">): ActionOf<"generals-war"> {
    request.note(this.text);
    return gw.reveal();
  }
}

async function noteSent(text: string): Promise<{ bytes: Uint8Array; note: string }> {
  const driver = new BotDriver(new Rambling(text));
  await driver.handle(START);
  const [answer] = await driver.handle(request(1));
  const bytes = encodeBotMessage(answer!);
  return { bytes, note: decodeBotMessage(bytes).action?.note ?? "" };
}

test("a long note is cut to 500 characters before it is sent: the referee refuses an answer over 64 KiB", async () => {
  const { bytes, note } = await noteSent("why ".repeat(50_000));
  assert.ok(bytes.length <= 64 * 1024);
  assert.equal(note.length, 500);
  const emoji = await noteSent("😀".repeat(600)); // counted in characters (code points), as the referee counts them
  assert.equal(Array.from(emoji.note).length, 500);
  assert.equal(emoji.note, "😀".repeat(500));
});

test("a lone surrogate (half an emoji, cut by slice) is sent as U+FFFD: as it was, the answer was not UTF-8", async () => {
  const { bytes, note } = await noteSent("half an emoji: " + "😀".slice(0, 1));
  assert.equal(note, "half an emoji: \ufffd");
  assert.doesNotThrow(() => new TextDecoder("utf-8", { fatal: true }).decode(bytes.subarray(bytes.indexOf(0x68)))); // from "half"
});

class Slipping extends Bot<"generals-war"> {
  act(request: Request<"generals-war">): ActionOf<"generals-war"> {
    request.note("my own thoughts");
    return (request.decisionIndex === 1 ? { revealGenerals: { cardIdz: [3] } } : gw.reveal()) as ActionOf<"generals-war">;
  }
}

test("an action not sent goes with why as its note, in place of the bot's, for the referee's MALFORMED verdict to quote", async () => {
  // `arena match` said only "expected an action of generals_war, got none"; why was in the bot's log alone.
  const driver = new BotDriver(new Slipping());
  await driver.handle(START);
  const write = process.stderr.write;
  process.stderr.write = (() => true) as typeof process.stderr.write;
  let slipped: ReturnType<typeof decodeBotMessage>;
  try {
    const [answer] = await driver.handle(request(1));
    slipped = decodeBotMessage(encodeBotMessage(answer!));
  } finally {
    process.stderr.write = write;
  }
  assert.deepEqual(slipped.action?.action, {});
  assert.match(slipped.action?.note ?? "", /^the SDK sent no action: act returned an action that cannot be sent as it is: .*cardIdz/);
  const [played] = await driver.handle(request(2));
  assert.equal(decodeBotMessage(encodeBotMessage(played!)).action?.note, "my own thoughts");
});
