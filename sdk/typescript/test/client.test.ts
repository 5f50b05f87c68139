/** The client against a scripted referee (a gRPC server in this process): how long it keeps reconnecting. */

import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { test } from "node:test";

import * as grpc from "@grpc/grpc-js";

import { type ActionOf, Bot, generalsWar as gw, log, play, protocol } from "arena-sdk";

/**
 * A step of a stream's script: a message to send, milliseconds to wait, a status to fail with, or "hold" (until the bot
 * hangs up). A script without "hold" or a failure ends its stream with OK.
 */
type Step = { send: object } | { wait: number } | { fail: grpc.status } | "hold";

const START = { start: { matchId: "m", game: "generals-war", seat: 0, numSeats: 2, protocolVersion: 1 } };
const RESULT = { result: { matchId: "m", seats: [{ seat: 0, rank: 1 }, { seat: 1, rank: 2 }] } };

class Revealer extends Bot<"generals-war"> {
  act(): ActionOf<"generals-war"> {
    return gw.reveal();
  }
}

/** A referee that plays its n-th stream from the n-th script (the last one again after); `hellos` counts the streams. */
async function scriptedReferee(...scripts: Step[][]): Promise<{ address: string; hellos: () => number; close: () => void }> {
  const dir = mkdtempSync(path.join(tmpdir(), "arena-ts-"));
  const address = `unix:${path.join(dir, "r.sock")}`;
  let hellos = 0;
  const server = new grpc.Server();
  server.addService(protocol().arena.v1.Referee.service, {
    Play: (call: grpc.ServerDuplexStream<unknown, unknown>) => {
      call.once("data", async () => {
        hellos += 1;
        const script = scripts[Math.min(hellos, scripts.length) - 1]!;
        for (const step of script) {
          if (step === "hold") call.on("end", () => call.end());
          else if ("send" in step) call.write(step.send);
          else if ("wait" in step) await new Promise((resolve) => setTimeout(resolve, step.wait));
          else call.emit("error", { code: step.fail, details: "scripted" });
        }
        if (!script.some((step) => step === "hold" || (typeof step === "object" && "fail" in step))) call.end();
      });
    },
  });
  await new Promise<void>((resolve, reject) => server.bindAsync(address, grpc.ServerCredentials.createInsecure(), (err) => (err ? reject(err) : resolve())));
  return {
    address,
    hellos: () => hellos,
    close: () => {
      server.forceShutdown();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** `promise`, or a rejection if it has not settled in `ms`: a guard against a hang, which would hold the test run. */
function settledWithin<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const hung = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`not settled after ${ms} ms`)), ms);
  });
  return Promise.race([promise, hung]).finally(() => clearTimeout(timer));
}

test("the reconnect window starts again with each message: a referee that breaks each stream after a message is not given up on", async () => {
  // As in tests/test_sdk_clients.py for the Python SDK: four broken streams take longer than the one-second window.
  const breaking: Step[] = [{ wait: 400 }, { send: START }, { fail: grpc.status.UNAVAILABLE }];
  const referee = await scriptedReferee(breaking, breaking, breaking, breaking, [{ send: START }, { send: RESULT }, "hold"]);
  const threshold = log.threshold;
  log.threshold = 100;
  try {
    const result = await settledWithin(play(new Revealer(), referee.address, "m", "t", { reconnectSeconds: 1 }), 30_000);
    assert.deepEqual(result?.seats.map((s) => s.rank), [1, 2]);
    assert.equal(referee.hellos(), 5);
  } finally {
    log.threshold = threshold;
    referee.close();
  }
});

test("an exception in act ends play with that exception, not a silent wait for the decision's time to run out", async () => {
  class Broken extends Bot<"generals-war"> {
    act(): ActionOf<"generals-war"> {
      throw new Error("a bug in act");
    }
  }
  const decision = { decision: { requestId: 3, decision: { generalsWar: { revealChoice: {} } } } };
  const referee = await scriptedReferee([{ send: START }, { send: decision }, "hold"]);
  try {
    await assert.rejects(settledWithin(play(new Broken(), referee.address, "m", "t", { reconnectSeconds: 1 }), 30_000), /a bug in act/);
    assert.equal(referee.hellos(), 1, "not connected again");
  } finally {
    referee.close();
  }
});

test("a stream that ends while act is still deciding is not taken for a broken one: the messages before its end are handled first", async () => {
  // The referee sends the result and ends the stream without waiting for the answer (its time ran out, say).
  class Slow extends Bot<"generals-war"> {
    async act(): Promise<ActionOf<"generals-war">> {
      await new Promise((resolve) => setTimeout(resolve, 300));
      return gw.reveal();
    }
  }
  const decision = { decision: { requestId: 3, decision: { generalsWar: { revealChoice: {} } } } };
  const referee = await scriptedReferee([{ send: START }, { send: decision }, { send: RESULT }]);
  const threshold = log.threshold;
  log.threshold = 100;
  try {
    const result = await settledWithin(play(new Slow(), referee.address, "m", "t", { reconnectSeconds: 1 }), 30_000);
    assert.deepEqual(result?.seats.map((s) => s.rank), [1, 2]);
    assert.equal(referee.hellos(), 1, "no second stream");
  } finally {
    log.threshold = threshold;
    referee.close();
  }
});
