/** The client against a scripted referee (a gRPC server in this process): how long it keeps reconnecting. */

import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { test } from "node:test";

import * as grpc from "@grpc/grpc-js";

import { type ActionOf, Bot, generalsWar as gw, log, play, protocol, type Request } from "arena-sdk";

import { failure } from "../src/driver.js";

/**
 * A step of a stream's script: a message to send, milliseconds to wait, a status to fail with, a function to run
 * (awaited: it may move a test's clock, or wait for the bot), "read" (wait for the bot's next message), or "hold"
 * (until the bot hangs up). A script without "hold" or a failure ends its stream with OK.
 */
type Step = { send: object } | { wait: number } | { fail: grpc.status } | { run: () => unknown } | "read" | "hold";

const START = { start: { matchId: "m", game: "generals-war", seat: 0, numSeats: 2, protocolVersion: 1 } };
const RESULT = { result: { matchId: "m", seats: [{ seat: 0, rank: 1 }, { seat: 1, rank: 2 }] } };

class Revealer extends Bot<"generals-war"> {
  act(): ActionOf<"generals-war"> {
    return gw.reveal();
  }
}

interface Referee {
  address: string;
  /** How many streams it has had. */
  hellos: () => number;
  /** Send `msg` on the last stream now, whatever step its script is at. */
  send: (msg: object) => void;
  close: () => void;
}

/** A referee that plays its n-th stream from the n-th script (the last one again after). */
async function scriptedReferee(...scripts: Step[][]): Promise<Referee> {
  const dir = mkdtempSync(path.join(tmpdir(), "arena-ts-"));
  const address = `unix:${path.join(dir, "r.sock")}`;
  let hellos = 0;
  let last: grpc.ServerDuplexStream<unknown, unknown> | null = null;
  const server = new grpc.Server();
  server.addService(protocol().arena.v1.Referee.service, {
    Play: (call: grpc.ServerDuplexStream<unknown, unknown>) => {
      last = call;
      let unread = 0; // the bot's messages after its hello not yet read by a "read" step
      let woken: (() => void) | null = null;
      call.on("data", () => {
        unread += 1;
        woken?.();
      });
      call.once("data", async () => {
        unread -= 1; // the hello
        hellos += 1;
        const script = scripts[Math.min(hellos, scripts.length) - 1]!;
        for (const step of script) {
          if (step === "hold") call.on("end", () => call.end());
          else if (step === "read") {
            while (unread === 0) await new Promise<void>((resolve) => (woken = resolve));
            unread -= 1;
          } else if ("send" in step) call.write(step.send);
          else if ("wait" in step) await new Promise((resolve) => setTimeout(resolve, step.wait));
          else if ("run" in step) await step.run();
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
    send: (msg) => last?.write(msg),
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
    const failed = await settledWithin(play(new Broken(), referee.address, "m", "t", { reconnectSeconds: 1 }), 30_000).then(
      () => assert.fail("play went on"),
      (err: unknown) => err,
    );
    assert.match(String(failed), /a bug in act/);
    assert.equal(referee.hellos(), 1, "not connected again");
    // run's last line names the decision, which the stack (the error's line of bot.ts) does not.
    assert.match(failure(failed), /^the bot failed at decision 0, asked for revealChoice: Error: a bug in act\n +at /);
    assert.equal(failure(new Error("elsewhere")).split("\n")[0], "the bot failed: Error: elsewhere");
    assert.equal(failure("a string"), "the bot failed: a string");
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

/** A reveal choice of General's War with the referee's 5000 ms for it. */
const decision = (requestId: number): object => ({ decision: { requestId, timeLeftMs: 5000, decision: { generalsWar: { revealChoice: {} } } } });

/** Answers request 1 six seconds late by the test's clock (`now`, ms); keeps what `act` was told of each request. */
class Overrunning extends Bot<"generals-war"> {
  readonly left: Record<number, number> = {};

  constructor(readonly now: number[]) {
    super();
  }

  act(request: Request<"generals-war">): ActionOf<"generals-war"> {
    this.left[request.requestId] = request.timeLeftMs;
    if (request.requestId === 1) this.now[0]! += 6000; // past its 5000 ms
    return gw.reveal();
  }
}

/** `bot` after a match against `referee` (closed after), timed by the test's `clock` (ms), which moves only when a step or `act` moves it. */
async function played<B extends Bot<"generals-war">>(referee: Referee, bot: B, clock: () => number): Promise<B> {
  const threshold = log.threshold;
  log.threshold = 100;
  try {
    const result = await settledWithin(play(bot, referee.address, "m", "t", { reconnectSeconds: 1, clock }), 30_000);
    assert.ok(result, "the match was played to its result");
  } finally {
    log.threshold = threshold;
    referee.close();
  }
  return bot;
}

test("a request that fires at once after a late answer is timed from when the earlier one ran out", async () => {
  // The referee counts timeLeftMs from when it sent a request. A synchronous act holds the event loop, so a request
  // sent while it ran past its deadline fires only after it returns; it waited since then, at the earliest the
  // deadline: act is told what is left from there (5000 ms less the 1000 it may have waited), not the referee's
  // figure. (Here the referee sends it once it has the late answer, at the same time by the test's clock: as one
  // already in the stream would fire.) As tests/test_sdk_clients.py checks of the Python SDK.
  const now = [0];
  const script: Step[] = [{ send: START }, { send: decision(1) }, "read", { send: decision(2) }, "read", { send: RESULT }, "hold"];
  const bot = await played(await scriptedReferee(script), new Overrunning(now), () => now[0]!);
  assert.deepEqual(bot.left, { 1: 5000, 2: 4000 });
});

test("a message that fires a while after a late answer came after it: the request after it has its whole time", async () => {
  // The event batch fires two seconds after the late answer: it came while the SDK waited for it, and so did the
  // request after it.
  const now = [0];
  const later = (): void => {
    now[0]! += 2000;
  };
  const script: Step[] = [{ send: START }, { send: decision(1) }, "read", { run: later }, { send: { events: {} } }, { send: decision(2) }, "read", { send: RESULT }, "hold"];
  const bot = await played(await scriptedReferee(script), new Overrunning(now), () => now[0]!);
  assert.deepEqual(bot.left, { 1: 5000, 2: 5000 });
});

test("a request that comes while an asynchronous act runs late is timed from when it came, not from the deadline", async () => {
  // The event loop is free while act awaits, so the request fires as it comes: 5.5 s after request 1 (its deadline
  // at 5 s), half a second before act answers request 1 late. It waited 500 ms of its 5000.
  const now = [0];
  let actStarted!: () => void;
  const started = new Promise<void>((resolve) => (actStarted = resolve));
  let fired: (() => void) | null = null; // once act awaits, the next reading of the clock is request 2 firing
  const clock = (): number => {
    fired?.();
    return now[0]!;
  };
  class Awaiting extends Bot<"generals-war"> {
    readonly left: Record<number, number> = {};

    async act(request: Request<"generals-war">): Promise<ActionOf<"generals-war">> {
      this.left[request.requestId] = request.timeLeftMs;
      if (request.requestId === 1) {
        now[0]! += 5500;
        await new Promise<void>((resolve) => {
          fired = resolve;
          actStarted();
        });
        fired = null;
        now[0]! += 500;
      }
      return gw.reveal();
    }
  }
  const script: Step[] = [{ send: START }, { send: decision(1) }, { run: () => started }, { send: decision(2) }, "read", "read", { send: RESULT }, "hold"];
  const bot = await played(await scriptedReferee(script), new Awaiting(), clock);
  assert.deepEqual(bot.left, { 1: 5000, 2: 4500 });
});

test("a request already in the socket after a late answer is bounded however long the event loop took to come round", async () => {
  // The referee writes request 2 while act runs (act writes it for the referee here), and the machine is busy: 50 ms
  // pass, by the test's clock, before the loop comes round to read it, longer than WAITED_MS. It fired in the loop's
  // first poll after the answer, so it was in the socket already: counted from request 1's deadline, as above.
  const now = [0];
  const referee = await scriptedReferee([{ send: START }, { send: decision(1) }, "read", "read", { send: RESULT }, "hold"]);
  class Busy extends Overrunning {
    override act(request: Request<"generals-war">): ActionOf<"generals-war"> {
      if (request.requestId === 1) {
        referee.send(decision(2));
        setImmediate(() => (now[0]! += 50));
      }
      return super.act(request);
    }
  }
  const bot = await played(referee, new Busy(now), () => now[0]!);
  assert.deepEqual(bot.left, { 1: 5000, 2: 3950 });
});
