/**
 * The protocol logic of a bot, apart from any transport.
 *
 * `BotDriver.handle` takes each message from the referee and returns the messages to send back.
 * The gRPC client (client.ts) feeds it from a stream; a test can feed it directly.
 */

import { Bot, keptNote, Request } from "./bot.js";
import { actionKinds, fieldFault } from "./fields.js";
import { log } from "./log.js";
import { decodeBotMessage, encodeBotMessage, PROTOCOL_VERSION } from "./protocol.js";
import type { BotMessage, DecisionRequest, EnvelopeAction, EventEnvelope, EventOf, GameId, GameStart, MatchResult, RefereeMessage } from "./types.js";
import { gameField } from "./types.js";

const ERROR_CODES = ["ERROR_CODE_UNSPECIFIED", "STALE_REQUEST", "MALFORMED_ACTION", "UNEXPECTED_MESSAGE", "MESSAGE_TOO_LARGE"];
/** Errors that say the referee could not use the bot's answer, which leaves the request open. */
const UNUSED_ANSWER = new Set(["MALFORMED_ACTION", "MESSAGE_TOO_LARGE"]);
/** How many answers' times are kept, for a STALE_REQUEST naming one of them. */
const TIMED_ANSWERS = 16;
/**
 * A message whose `data` event fires within this many milliseconds (by the driver's clock) of the SDK being done with
 * what came before was already in the stream: the Python SDK's WAITED_S. Later, it came while the SDK waited for it.
 */
export const WAITED_MS = 1;

/** When an answer went, for the log line of a referee that says it came too late. */
interface TimedAnswer {
  decisionIndex: number;
  timeLeftMs: number;
  /** Milliseconds from the request's arrival (queued behind a slow answer, it waited) to its answer. */
  tookMs: number;
}

export class BotDriver {
  start: GameStart | null = null;
  result: MatchResult | null = null;
  pending: DecisionRequest | null = null;
  retries = 0;
  /** The last answer, its request and the action sent: a rejection's log line names their kinds (found only then). */
  answered: { request: Request; action: EnvelopeAction } | null = null;
  readonly maxRetries: number;
  /** When the pending request arrived, by `clock`. */
  private pendingSince = 0;
  /**
   * When the last answer's request ran out (by `clock`), if `act` answered it after that; else null. The referee may
   * have sent this seat's next request at any moment since, while a synchronous `act` held Node's event loop
   * (see `cameAt`).
   */
  lateSince: number | null = null;
  /** While `lateSince` holds: when the SDK was last done with a message (the late answer, or one handled since). */
  private doneAt = 0;
  private readonly timed = new Map<number, TimedAnswer>();

  constructor(
    readonly bot: Bot<any>,
    maxRetries?: number,
    /** Milliseconds, monotonic: how long a request waited before `act` and how long answers took (only differences are used). */
    readonly clock: () => number = () => performance.now(),
  ) {
    this.maxRetries = maxRetries ?? bot.maxRetries;
  }

  hello(matchId: string, token: string): BotMessage {
    return {
      hello: { matchId, token, protocolVersion: PROTOCOL_VERSION, botName: this.bot.name, botVersion: this.bot.version },
    };
  }

  /**
   * When `msg`, whose `data` event fired at `firedAt` (by `clock`), came, at the earliest: `firedAt`, but for a
   * request that fired at once after a late answer. A synchronous `act` holds the event loop, so a request the
   * referee sent while it ran fires only after it returns; the referee sends one only after the request being
   * answered ran out, so it is taken as come then (`lateSince`), if that is earlier. A message fires at once if it
   * fires within `WAITED_MS` of the SDK being done with the one before (`done`), or before the event loop came round
   * since (`beforeTurn`, which the client knows: what was in the socket fires in its first poll, however long a busy
   * machine took to get there). One that fires later came while the SDK waited for it: it, and what follows it, came
   * after the late answer, and the bound is dropped. It only ever makes a request's time shorter: an asynchronous
   * `act`, which leaves the event loop free, lets a request fire as it comes, and that time is kept unless it is later.
   */
  cameAt(msg: RefereeMessage, firedAt: number, beforeTurn = false): number {
    if (this.lateSince === null) return firedAt;
    if (!beforeTurn && firedAt - this.doneAt > WAITED_MS) {
      this.lateSince = null;
      return firedAt;
    }
    return msg.msg === "decision" ? Math.min(firedAt, this.lateSince) : firedAt;
  }

  /**
   * The SDK is done with a message (handled, its replies sent) and waits for the next: one that fires within
   * `WAITED_MS` of now was already in the stream. As the Python SDK times each read from when it was done with the
   * message before, its event hooks included.
   */
  done(): void {
    if (this.lateSince !== null) this.doneAt = this.clock();
  }

  /**
   * `receivedAt` (by `clock`): when the message came, if it waited behind another (default: now), as `cameAt` says;
   * a request's `timeLeftMs` subtracts the wait.
   */
  async handle(msg: RefereeMessage, receivedAt?: number): Promise<BotMessage[]> {
    switch (msg.msg) {
      case "start":
        this.start = msg.start ?? null;
        if (this.start) this.bot.onStart(this.start);
        break;
      case "events":
        if (msg.events) this.events(msg.events.events);
        break;
      case "decision":
        // Taken before onEvents: the time the bot's hooks take is the decision's too.
        this.pendingSince = receivedAt ?? this.clock();
        // Events folded into the request (what an EventBatch just before it would hold) come first.
        if (msg.decision?.events?.events.length) this.events(msg.decision.events.events);
        this.pending = msg.decision ?? null;
        this.retries = 0;
        return this.answer();
      case "rejection": {
        const rejection = msg.rejection;
        if (!rejection) break;
        const pending = this.pending && rejection.requestId === this.pending.requestId ? this.pending : null;
        // The reason says what the referee wanted; the kind sent shows a bot answering another decision.
        const answered = pending && this.answered;
        const which = answered ? ` (decision ${pending.decisionIndex}, asked for ${answered.request.kind}, answered with ${kindOf(answered.action, this.start?.game ?? "")})` : "";
        log.warning(`action rejected: ${rejection.reason}${which}`);
        this.bot.onRejection(rejection.reason);
        if (pending) {
          this.retries += 1;
          if (this.retries <= this.maxRetries) return this.answer();
          if (this.retries === this.maxRetries + 1) {
            // once: the referee may still reject answers sent before
            return this.giveUp(pending, `after ${this.retries} rejected actions (maxRetries ${this.maxRetries})`);
          }
        }
        break;
      }
      case "error": {
        const error = msg.error;
        if (!error) break;
        log.warning(`protocol error ${ERROR_CODES[error.code] ?? error.code}: ${error.message}${this.lateness(error.code, error.message)}`);
        if (UNUSED_ANSWER.has(ERROR_CODES[error.code] ?? "") && this.pending && !this.result) {
          // act is not asked again for a decision whose answer was not an action: it would slip the same way
          return this.giveUp(this.pending, "(its answer was not a usable action)");
        }
        break;
      }
      case "result":
        this.result = msg.result ?? null;
        if (this.result) this.bot.onResult(this.result);
        break;
      default:
        break;
    }
    return [];
  }


  private events(raw: EventEnvelope[]): void {
    if (!this.start) return;
    const field = gameField(this.start.game);
    this.bot.onEvents(
      raw.map((e) => (e as unknown as Record<string, unknown>)[field] as EventOf<GameId>),
      raw,
    );
  }
  /** Tell the referee (and the log) no answer will come for `pending`: it ends the request now, as its deadline would. */
  private giveUp(pending: DecisionRequest, why: string): BotMessage[] {
    log.warning(`giving up on decision ${pending.decisionIndex} ${why}: the referee plays the default action and gives a TIMEOUT strike`);
    return [{ giveUp: { requestId: pending.requestId } }];
  }

  /**
   * For a STALE_REQUEST naming an answer of this bot: which decision it was and how long the answer took. The referee
   * names the request by its id, which appears nowhere else, where `arena match` and the replay count decisions.
   */
  private lateness(code: number, message: string): string {
    const id = ERROR_CODES[code] === "STALE_REQUEST" ? /^request (\d+)\b/.exec(message)?.[1] : undefined;
    const timed = id === undefined ? undefined : this.timed.get(Number(id));
    if (!timed) return "";
    return ` (decision ${timed.decisionIndex}: answered ${timed.tookMs} ms after it came, of the ${timed.timeLeftMs} ms it had)`;
  }

  private async answer(): Promise<BotMessage[]> {
    const pending = this.pending;
    const start = this.start;
    if (!pending || !start) return [];
    const request = new Request(pending, start, Math.max(0, Math.round(this.clock() - this.pendingSince)));
    const faults: string[] = [];
    // The decision named, as a rejection's line names it: `act returned {}` said what, not where.
    const where = `decision ${pending.decisionIndex}, asked for ${request.kind}`;
    let returned: unknown;
    try {
      returned = await this.bot.act(request);
    } catch (err) {
      if (typeof err === "object" && err !== null && !THREW_AT.has(err)) THREW_AT.set(err, where);
      throw err;
    }
    const action = wrap(returned, start.game, faults, where);
    this.answered = { request, action }; // its kinds are looked up only for a rejection's log line
    const tookMs = Math.round(this.clock() - this.pendingSince);
    this.timed.delete(pending.requestId); // re-inserted last: the map keeps the newest answers
    this.timed.set(pending.requestId, { decisionIndex: pending.decisionIndex, timeLeftMs: pending.timeLeftMs, tookMs });
    if (this.timed.size > TIMED_ANSWERS) this.timed.delete(this.timed.keys().next().value as number);
    this.lateSince = tookMs > pending.timeLeftMs ? this.pendingSince + pending.timeLeftMs : null;
    if (this.lateSince !== null) {
      // Said now: the referee's STALE_REQUEST comes back only once the event loop is free, after a synchronous act
      // has also thought through the requests queued meanwhile, and a bot timed out on each is forfeited and killed
      // before it: a slow bot's log was empty, its verdict the only trace.
      log.warning(`decision ${pending.decisionIndex}: act answered ${tookMs} ms after the request came, of the ${pending.timeLeftMs} ms it had: too late, the referee has timed it out`);
    }
    // An action not sent goes with why as its note, which the referee quotes in its MALFORMED verdict: the verdict
    // said only "got none", and why was in the bot's log alone.
    const note = faults.length ? keptNote(`${UNSENT}${faults[0]}`) : request.noted;
    return [{ action: { requestId: pending.requestId, action, note } }];
  }
}

/** The decision at which `act` threw each error it threw (an object), for `failure`. */
const THREW_AT = new WeakMap<object, string>();

/**
 * The line `run` logs for the error that ended the bot: `the bot failed at decision 10, asked for defenceChoice: Error: ...`
 * when `act` threw it (the bot's log named the error and its line of bot.ts, but not the decision), then its stack.
 */
export function failure(err: unknown): string {
  const at = typeof err === "object" && err !== null ? THREW_AT.get(err) : undefined;
  return `the bot failed${at ? ` at ${at}` : ""}: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`;
}

/** How the note of an action the SDK could not send begins (the referee's MALFORMED verdict quotes the note). */
export const UNSENT = "the SDK sent no action: ";

/**
 * The envelope Action for a game's action (an envelope passes through). What is not an action of the game (an
 * action of another game, or none: its fields are not the game's, so it would go as an action of no kind), or
 * has several kinds set (one of them misspelled, say: the encoding would send one it picks), or
 * cannot be encoded as it is (a field of the wrong type, such as `{ playSquad: 7 }` or a card id `"3"`, which the
 * encoding would send as 3, and `"x"` as 0, or a name that is no field, such as `cardIdz`, which it would drop:
 * fields.ts), is logged as an error, naming the field, and becomes
 * the empty action, which the referee refuses as malformed, as the Python SDK does. Sent as it was, an action
 * that cannot be encoded would fail the stream (gRPC cancels a call whose message does not serialize), and the
 * bot would reconnect only to send it again. `where` (the decision, for the driver) begins the error's line.
 */
export function wrap(action: unknown, game: string, faults?: string[], where?: string): EnvelopeAction {
  const field = gameField(game);
  const unsent = (fault: string): EnvelopeAction => {
    log.error(`${where ? `${where}: ` : ""}${fault}; sending no action`);
    faults?.push(fault);
    return {};
  };
  if (action === null || typeof action !== "object") {
    // A string quoted, as Python's repr does: `act returned attack` read as if an action had been returned.
    return unsent(`act returned ${typeof action === "string" ? JSON.stringify(action) : String(action)}, not an action`);
  }
  const envelope = (field in action ? action : { [field]: action }) as EnvelopeAction;
  // Several kinds (a second one misspelled, say) went as the one the encoding picked, not as one the bot chose.
  const kinds = kindsSet(envelope, field);
  if (kinds.length > 1) {
    return unsent(`act returned an action with ${kinds.length} kinds set (${kinds.join(", ")}); exactly one is needed`);
  }
  // The encoding converts a field of the wrong type without a word (a string where a number belongs went as 0) and
  // drops a name that is no field.
  const fault = fieldFault(envelope);
  if (fault) {
    return unsent(`act returned an action that cannot be sent as it is: ${fault}`);
  }
  let bytes: Buffer;
  try {
    bytes = encodeBotMessage({ action: { action: envelope } });
  } catch (err) {
    return unsent(`act returned an action that cannot be encoded (${err instanceof Error ? err.message : String(err)})`);
  }
  // Fields that are not the game's are dropped by the encoding: what is left must still be one of its kinds.
  const sent = decodeBotMessage(bytes).action?.action as Record<string, { kind?: string } | null> | null | undefined;
  if (!sent?.[field]?.kind) {
    // Its kinds named: `{ land_and_castle: ... }` or a decision's kind (`castleChoice`) sent as the action's said only "not".
    return unsent(`act returned ${described(action)}, not an action of ${game} (one of ${actionKinds(field).join(", ")})`);
  }
  return envelope;
}

/** The members set (neither undefined nor null) of a wrapped action of the game `field` names, but its `kind`. */
function kindsSet(envelope: EnvelopeAction, field: string): string[] {
  const inner = (envelope as Record<string, unknown>)[field];
  if (inner === null || typeof inner !== "object") return [];
  return Object.entries(inner).filter(([k, v]) => k !== "kind" && v !== undefined && v !== null).map(([k]) => k);
}

/** The kind of a wrapped action (its `kind`, or the member set, as a bot builds it); null for no action. */
function kindOf(envelope: EnvelopeAction, game: string): string | null {
  const inner = (envelope as Record<string, Record<string, unknown> | null | undefined>)[gameField(game)];
  if (!inner) return null;
  if (typeof inner.kind === "string") return inner.kind;
  return Object.keys(inner).find((k) => inner[k] !== undefined && inner[k] !== null) ?? null;
}

function described(value: object): string {
  let text: string;
  try {
    text = JSON.stringify(value) ?? String(value);
  } catch {
    text = String(value); // a BigInt or a cycle
  }
  return text.length <= 80 ? text : `${text.slice(0, 77)}...`;
}
