/**
 * Ask the TypeScript sample bots real decisions from stdin: a test helper for tests/test_typescript_choices.py,
 * which asks the Python sample bots the same decisions and compares the answers.
 *
 *   node scripts/bundle.mjs --no-check --outdir DIR test/decide.ts && node DIR/decide.js
 *
 * One process serves many decisions. Each one comes as three frames (a frame: a 4-byte big-endian length, then
 * that many bytes): the game id, a RefereeMessage holding the match's GameStart, and a RefereeMessage holding the
 * DecisionRequest. A fresh bot of that game (the heuristic bots keep no state between decisions) is fed both
 * through the SDK's BotDriver, as the gRPC client feeds it, and the answer goes back as one frame: a status byte
 * (0, then the BotMessage the driver would send; 1, then the error's text).
 */

import { type Bot, BotDriver, decodeRefereeMessage, encodeBotMessage } from "arena-sdk";

import { AssassinationBot } from "../../../sample_bots/typescript_assassination/bot.js";
import { GeneralsAndAssassinsBot } from "../../../sample_bots/typescript_generals_and_assassins/bot.js";
import { GloryBot } from "../../../sample_bots/typescript_glory/bot.js";
import { GreedyBot } from "../../../sample_bots/typescript_greedy/bot.js";
import { LandAndCastleBot } from "../../../sample_bots/typescript_land_and_castle/bot.js";

const BOTS: Record<string, () => Bot<any>> = {
  "generals-war": () => new GreedyBot(),
  "generals-and-assassins": () => new GeneralsAndAssassinsBot(),
  glory: () => new GloryBot(),
  "land-and-castle": () => new LandAndCastleBot(),
  assassination: () => new AssassinationBot(),
};

function frame(status: number, payload: Uint8Array): Buffer {
  const head = Buffer.alloc(5);
  head.writeUInt32BE(payload.length + 1, 0);
  head[4] = status;
  return Buffer.concat([head, payload]);
}

async function answer(game: string, start: Buffer, decision: Buffer): Promise<Buffer> {
  const make = BOTS[game];
  if (!make) throw new Error(`no TypeScript sample bot plays ${game}`);
  const driver = new BotDriver(make());
  await driver.handle(decodeRefereeMessage(start));
  const sent = await driver.handle(decodeRefereeMessage(decision));
  if (sent.length !== 1 || !sent[0]?.action) throw new Error(`the driver sent ${sent.length} messages, not one action`);
  return encodeBotMessage(sent[0]);
}

async function main(): Promise<void> {
  let pending = Buffer.alloc(0);
  const frames: Buffer[] = [];
  for await (const chunk of process.stdin) {
    pending = Buffer.concat([pending, chunk as Buffer]);
    while (pending.length >= 4 && pending.length >= 4 + pending.readUInt32BE(0)) {
      const size = pending.readUInt32BE(0);
      frames.push(pending.subarray(4, 4 + size));
      pending = pending.subarray(4 + size);
      if (frames.length < 3) continue;
      const [game, start, decision] = frames.splice(0, 3) as [Buffer, Buffer, Buffer];
      let out: Buffer;
      try {
        out = frame(0, await answer(game.toString("utf8"), start, decision));
      } catch (err) {
        out = frame(1, Buffer.from(err instanceof Error ? (err.stack ?? err.message) : String(err), "utf8"));
      }
      process.stdout.write(out);
    }
  }
}

void main();
