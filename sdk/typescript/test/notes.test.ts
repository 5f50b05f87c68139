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
