/** Running a bot over gRPC: connect, play, reconnect within the match, log to stderr. */

import * as grpc from "@grpc/grpc-js";

import type { Bot } from "./bot.js";
import { BotDriver, failure } from "./driver.js";
import { levelFrom, log } from "./log.js";
import { protocol } from "./protocol.js";
import type { MatchResult, RefereeMessage } from "./types.js";

const MAX_MESSAGE = 4 * 1024 * 1024;
/**
 * HTTP/2 keepalive: the bot pings its referee after 30 s without traffic and drops the connection if the ping is not
 * answered in 10 s, so that a referee gone silent (its machine's power or network lost) ends in a reconnect, then
 * giving up, not in a wait for ever. The referee lets a bot ping every 20 s; these are the Python SDK's figures.
 */
export const KEEPALIVE = { timeMs: 30_000, timeoutMs: 10_000 };

function channelOptions(): grpc.ChannelOptions {
  return {
    "grpc.max_receive_message_length": MAX_MESSAGE,
    "grpc.max_send_message_length": MAX_MESSAGE,
    "grpc.keepalive_time_ms": KEEPALIVE.timeMs,
    "grpc.keepalive_timeout_ms": KEEPALIVE.timeoutMs,
  };
}

/**
 * Statuses that mean the referee refused this bot for good (wrong token, match over, seat forfeited or another seat's
 * socket), or ended its stream for another process's connection of the seat (ABORTED): taking the seat back fought
 * that process for it.
 */
const REFUSED = new Set<grpc.status>([
  grpc.status.UNAUTHENTICATED,
  grpc.status.FAILED_PRECONDITION,
  grpc.status.NOT_FOUND,
  grpc.status.PERMISSION_DENIED,
  grpc.status.ABORTED,
]);

/** The referee refused the connection for good. */
export class MatchRefused extends Error {
  override name = "MatchRefused";
}

export interface PlayOptions {
  /** How long to keep trying to reconnect after the stream drops (default 10 s). */
  reconnectSeconds?: number;
  /**
   * Milliseconds, monotonic (default `performance.now`): when each message came, for the time a request waited before
   * `act`, and how long `act` took. A test passes its own to move time as it likes.
   */
  clock?: () => number;
}

type RefereeClient = InstanceType<ReturnType<typeof protocol>["arena"]["v1"]["Referee"]>;

function newClient(address: string): RefereeClient {
  const Referee = protocol().arena.v1.Referee;
  return new Referee(address, grpc.credentials.createInsecure(), channelOptions());
}

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Play one match; reconnects after a dropped stream until the result arrives or `reconnectSeconds` pass.
 *
 * With `kept` (a client of `address`), the match is played over it and it is left open: gRPC reconnects it
 * by itself. Without, a client is made for each attempt and closed after it.
 */
export async function play(
  bot: Bot<any>,
  address: string,
  matchId: string,
  token: string,
  options: PlayOptions = {},
  kept?: RefereeClient,
): Promise<MatchResult | null> {
  const reconnectMs = (options.reconnectSeconds ?? 10) * 1000;
  const driver = new BotDriver(bot, undefined, options.clock);
  let giveUpAt: number | null = null;
  while (!driver.result) {
    const client = kept ?? newClient(address);
    // Bounded: a referee that is gone for good (killed, its match over) must not keep the bot waiting forever.
    const ready = await new Promise<boolean>((resolve) => {
      client.waitForReady(new Date(giveUpAt ?? Date.now() + reconnectMs), (err) => resolve(!err));
    });
    if (!ready) {
      if (!kept) client.close();
      log.error(`no referee at ${address} within ${Math.round(reconnectMs / 1000)} s`);
      return null;
    }
    let status: grpc.StatusObject;
    try {
      status = await stream(client, driver, matchId, token, () => {
        giveUpAt = null;
      });
    } finally {
      if (!kept) client.close();
    }
    if (driver.result) break;
    const code = grpc.status[status.code] ?? String(status.code);
    if (REFUSED.has(status.code)) throw new MatchRefused(`${code}: ${status.details}`);
    // Once per broken stream: the attempts after it (until a message comes) are logged at debug level.
    (giveUpAt === null ? log.warning : log.debug).call(log, `stream broke (${code}${status.details ? `: ${status.details}` : ""}); reconnecting`);
    const now = Date.now();
    giveUpAt ??= now + reconnectMs;
    if (now > giveUpAt) {
      log.error(`could not reconnect within ${Math.round(reconnectMs / 1000)} s`);
      return null;
    }
    await sleep(50);
  }
  return driver.result;
}

/** One stream: hello, then every message through the driver in order; resolves with the call's status. */
function stream(
  client: RefereeClient,
  driver: BotDriver,
  matchId: string,
  token: string,
  onMessage: () => void,
): Promise<grpc.StatusObject> {
  return new Promise((resolve, reject) => {
    const call = client.Play(new grpc.Metadata({ waitForReady: true }));
    let chain: Promise<void> = Promise.resolve();
    let failed = false;
    const send = (msg: Parameters<typeof call.write>[0]): void => {
      try {
        call.write(msg);
      } catch (err) {
        log.debug(`could not send: ${String(err)}`); // the stream is gone; the next one sends hello again
      }
    };
    // Set from when the SDK is done with a message after a late answer until the event loop has come round: its poll
    // for I/O, which comes before, fires what was in the socket by then, however long a busy machine took to get there.
    let polling: object | null = null;
    const done = (): void => {
      driver.done();
      if (driver.lateSince === null) {
        polling = null;
        return;
      }
      const mark = {};
      polling = mark;
      // This turn's check phase, then the next one's, after its poll.
      setImmediate(() =>
        setImmediate(() => {
          if (polling === mark) polling = null;
        }),
      );
    };
    call.on("data", (msg: RefereeMessage) => {
      onMessage();
      // A request may wait here while the bot still answers an earlier one; one that came while a synchronous act
      // held the event loop fires only now, and is taken as come at the earliest it can have (BotDriver.cameAt).
      const receivedAt = driver.cameAt(msg, driver.clock(), polling !== null);
      chain = chain.then(async () => {
        if (failed) return;
        try {
          for (const reply of await driver.handle(msg, receivedAt)) send(reply);
          done();
        } catch (err) {
          // An exception in the bot's own code ends the bot, as in the Python SDK.
          failed = true;
          call.cancel();
          reject(err);
          return;
        }
        if (driver.result) {
          // Said before hanging up: a process playing several matches has its log cut into the matches' parts as
          // each stream ends, and a line printed after went to the next match's part.
          logResult(driver.result);
          call.end();
        }
      });
    });
    call.on("error", () => {
      // The status event carries the code; without this listener an error status would throw.
    });
    call.on("status", (status: grpc.StatusObject) => {
      void chain.then(() => resolve(status));
    });
    send(driver.hello(matchId, token));
  });
}

function logResult(result: MatchResult): void {
  log.info(`match over: ${result.seats.map((s) => `seat ${s.seat} rank ${s.rank}`).join(", ")}`);
}

/**
 * Several matches in a row: one JSON line per match on stdin ({address, match_id, token, seed}); the end of stdin ends.
 * The client of the last address is kept between matches (a pooled process's referee keeps its address): each
 * match is a new stream on a connection already open.
 */
async function playFromControl(bot: Bot<any>, options: PlayOptions): Promise<void> {
  const { createInterface } = await import("node:readline");
  let kept = null as { address: string; client: RefereeClient } | null;
  try {
    for await (const line of createInterface({ input: process.stdin, crlfDelay: Infinity })) {
      if (!line.trim()) continue;
      const order = JSON.parse(line) as { address: string; match_id: string; token: string; seed?: string | number | null };
      if (order.seed !== undefined && order.seed !== null) process.env.ARENA_BOT_SEED = String(order.seed);
      if (kept?.address !== order.address) {
        kept?.client.close();
        kept = { address: order.address, client: newClient(order.address) };
      }
      try {
        await play(bot, order.address, order.match_id, order.token, options, kept.client);
      } catch (err) {
        if (!(err instanceof MatchRefused)) throw err;
        log.error(`refused by the referee: ${err.message}`);
      }
    }
  } finally {
    kept?.client.close();
  }
}

/**
 * Entry point of a bot process: reads ARENA_ADDRESS, ARENA_MATCH_ID and ARENA_TOKEN from the environment, plays, exits.
 *
 * With ARENA_CONTROL=stdin (a manifest with `matches_per_process` above 1) it plays every match the
 * referee hands it on standard input instead, one JSON line each, until stdin closes.
 */
export async function run(bot: Bot<any>, options: PlayOptions = {}): Promise<void> {
  const env = process.env;
  // The name its bot.toml gives it, which the referee hands on: the class's own is a sample's once copied and renamed.
  const name = env.ARENA_BOT_NAME || bot.name;
  log.prefix = name;
  // Read here, not only at import: a bot's main may set it before calling run (the imports run first).
  const level = levelFrom(env.ARENA_LOG_LEVEL);
  log.threshold = level ?? (levelFrom("INFO") as number);
  if (level === undefined) {
    log.warning(`ARENA_LOG_LEVEL=${env.ARENA_LOG_LEVEL} is not a level (DEBUG, INFO, WARNING, ERROR); logging at INFO`);
  }
  if (env.ARENA_CONTROL === "stdin") {
    try {
      await playFromControl(bot, options);
    } catch (err) {
      log.error(failure(err));
      process.exit(1);
    }
    process.exit(0);
  }
  for (const variable of ["ARENA_ADDRESS", "ARENA_MATCH_ID", "ARENA_TOKEN"]) {
    if (!env[variable]) {
      process.stderr.write(`${name}: ${variable} is not set; bots are started by the referee (arena match)\n`);
      process.exit(1);
    }
  }
  let result: MatchResult | null;
  try {
    result = await play(bot, env.ARENA_ADDRESS as string, env.ARENA_MATCH_ID as string, env.ARENA_TOKEN as string, options);
  } catch (err) {
    if (err instanceof MatchRefused) process.stderr.write(`${name}: refused by the referee: ${err.message}\n`);
    else log.error(failure(err));
    process.exit(1);
  }
  process.exit(result ? 0 : 1);
}
