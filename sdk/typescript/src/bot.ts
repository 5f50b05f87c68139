/** The bot base class and the request it answers. */

import type {
  ActionOf,
  AskedOf,
  ChoiceOf,
  DecisionOf,
  DecisionRequest,
  EventEnvelope,
  EventOf,
  GameId,
  GameStart,
  KindOf,
  ListedActionOf,
  MatchResult,
  ViewOf,
} from "./types.js";
import { gameField } from "./types.js";

/** The characters of a note the referee keeps (its NOTE_MAX, counted in code points); the SDK sends no more. */
export const NOTE_MAX = 500;

/**
 * `text` as the referee keeps it: at most NOTE_MAX code points, and a lone surrogate (half an emoji cut by
 * `slice`) as U+FFFD. Sent as it was, a lone surrogate went as bytes that are not UTF-8: the referee could not
 * read the answer, and the bot's stream was ended. A long note (a debug dump) made the answer larger than the
 * referee takes (64 KiB), and the action was refused with it.
 */
export function keptNote(text: string): string {
  let out = "";
  let count = 0;
  for (let i = 0; i < text.length && count < NOTE_MAX; i++, count++) {
    const c = text.charCodeAt(i);
    if (c >= 0xd800 && c <= 0xdbff && i + 1 < text.length) {
      const d = text.charCodeAt(i + 1);
      if (d >= 0xdc00 && d <= 0xdfff) {
        out += text[i]! + text[i + 1]!;
        i++;
        continue;
      }
    }
    out += c >= 0xd800 && c <= 0xdfff ? "\ufffd" : text[i]!;
  }
  return out;
}

/**
 * One decision request, with the game's own messages unwrapped.
 *
 * `view` and `decision` are the game's messages (for General's War, `arena.v1.generals_war.View`
 * and `Decision`); `kind` names the member of the decision's `kind` oneof that is set (such as
 * "squadChoice") and `choice` is that member: the constraints of the decision.
 */
export class Request<G extends GameId = GameId> {
  constructor(
    /** The DecisionRequest as received. */
    readonly raw: DecisionRequest,
    /** The match's GameStart. */
    readonly start: GameStart,
    /**
     * Milliseconds from the request's arrival in the SDK to this call of `act`: the time it waited behind an earlier
     * answer (and, asked again after a rejection, the time the earlier tries took).
     */
    readonly waitedMs = 0,
  ) {}

  private noteText = "";

  /**
   * Say why: `text` goes with this decision's answer and is shown beside the action in the replay.
   * At most 500 characters are kept. No other seat is sent it, but replays are public once the match's
   * deal is over (the ladder's too), so write nothing the bot must hide from later opponents. A later
   * call replaces the note; a note with an action the referee refuses is dropped.
   */
  note(text: string): void {
    this.noteText = keptNote(String(text));
  }

  /** The note this decision's answer carries ("" when `note` was not called). */
  get noted(): string {
    return this.noteText;
  }

  /** The game id, such as "generals-war". */
  get game(): G {
    return this.start.game as G;
  }

  /** The game's field in the protocol's oneofs, such as "generalsWar". */
  get field(): string {
    return gameField(this.start.game);
  }

  /** This bot's seat. */
  get seat(): number {
    return this.start.seat;
  }

  /** True (and the request typed for that game) when the match is of ``game``. */
  is<H extends GameId>(game: H): this is Request<H> {
    return this.start.game === game;
  }

  get view(): ViewOf<G> {
    return (this.raw.view as Record<string, unknown> | null)?.[this.field] as ViewOf<G>;
  }

  get decision(): DecisionOf<G> {
    return (this.raw.decision as Record<string, unknown> | null)?.[this.field] as DecisionOf<G>;
  }

  /** The kind of decision, such as "squadChoice". */
  get kind(): KindOf<G> {
    return (this.decision as { kind?: string } | undefined)?.kind as KindOf<G>;
  }

  /** The decision's constraints: the message of its kind. */
  get choice(): ChoiceOf<G> {
    const decision = this.decision as Record<string, unknown> | undefined;
    return (decision && this.kind ? decision[this.kind] : undefined) as ChoiceOf<G>;
  }

  /** The constraints when the decision is of ``kind``, else undefined: `const squad = request.choiceFor("squadChoice")`. */
  choiceFor<K extends KindOf<G>>(kind: K): ChoiceOf<G, K> | undefined {
    return this.kind === kind ? (this.choice as unknown as ChoiceOf<G, K>) : undefined;
  }

  /**
   * `{ kind, choice }` in one value whose `kind` narrows `choice`:
   * `const asked = request.asked; switch (asked.kind) { case "squadChoice": asked.choice.maxCards ... }`.
   */
  get asked(): AskedOf<G> {
    return { kind: this.kind, choice: this.choice } as unknown as AskedOf<G>;
  }

  /** The game's actions when the referee listed them all (at most 64); null when only `decision` describes them. */
  get legalActions(): ListedActionOf<G>[] | null {
    if (!this.raw.legalActionsListed) return null;
    return this.raw.legalActions.map((a) => (a as Record<string, unknown>)[this.field] as ListedActionOf<G>);
  }

  get requestId(): number {
    return this.raw.requestId;
  }

  /**
   * Milliseconds left for this decision (move time plus bank) when `act` was called.
   *
   * The referee's figure (`raw.timeLeftMs`) is counted from when it sent the request; the SDK subtracts what the
   * request waited since it arrived (`waitedMs`, by a monotonic clock), such as behind an earlier `act` still
   * awaiting its answer, or the tries before a rejection. A synchronous `act` holds Node's event loop: a request
   * that comes meanwhile reaches the SDK only after it returns. After an answer past its deadline, such a request
   * that reaches the SDK at once is counted from that deadline, the earliest it can have come (`BotDriver.cameAt`):
   * never more time than is left. The time on the way is not counted: keep a margin. It is the same figure all
   * through one call of `act`: take the clock from there.
   */
  get timeLeftMs(): number {
    return Math.max(0, this.raw.timeLeftMs - this.waitedMs);
  }

  /** Of timeLeftMs, the part that comes from the match's time bank (spent after the move time). */
  get timeBankLeftMs(): number {
    return Math.min(this.raw.timeBankLeftMs, this.timeLeftMs);
  }

  /** How many decisions the match asked of any seat before this one. */
  get decisionIndex(): number {
    return this.raw.decisionIndex;
  }
}

/**
 * Subclass this and implement `act`; the other hooks are optional.
 *
 * `Bot<"generals-war">` types requests and actions for one game; a plain `Bot` plays any game
 * (use `request.is("glory")` to narrow).
 */
export abstract class Bot<G extends GameId = GameId> {
  name = "bot";
  version = "0";
  /** How often `act` is asked again after a rejected action before the bot gives up on that decision. */
  maxRetries = 3;

  /** The match started (or resumed after a reconnect). */
  onStart(start: GameStart): void {}

  /** Return the game's action for this request (or a promise of it). */
  abstract act(request: Request<G>): ActionOf<G> | Promise<ActionOf<G>>;

  /** Events this seat may see, as the game's Event messages, in order; `raw` has the envelopes with their `seq`. */
  onEvents(events: EventOf<G>[], raw: EventEnvelope[]): void {}

  /** The last action was illegal; `act` is asked again with the same request. */
  onRejection(reason: string): void {}

  /** The match is over. */
  onResult(result: MatchResult): void {}
}
