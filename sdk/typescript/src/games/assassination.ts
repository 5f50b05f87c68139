/**
 * Assassination Game helpers: the board, what a card does, action builders, and a legal random action.
 *
 * The board (docs/games/assassination.md):
 *
 *              col 0            col 1              col 2              col 3
 *     row 0    Tower            Security office    Health services    (wall)
 *     row 1    Podium           Courtyard          Hall               Helipad
 *     row 2    (wall)           (wall)             Public exit        Bunker
 *
 * A movement card sends its piece one room: spades up, hearts down, diamonds left, clubs right,
 * aces and jokers nowhere; a piece that cannot go the way shown goes the opposite way. A card's
 * id tells its colour (`id / 108`) and whether it is a movement card (`id / 54` even) or an
 * event card (odd: aces act, jacks to kings do nothing).
 */

import type { Request } from "../bot.js";
import type * as pb from "../generated/arena/v1/assassination/index.js";
import { Direction, Room } from "../generated/arena/v1/assassination/index.js";
import type { Rng } from "../rng.js";
import { ACE, type CardLike, type CardRef, forGame, id, JOKER, rankOf, suitOf } from "./common.js";

export * as pb from "../generated/arena/v1/assassination/index.js";
export { ActionKind, DiceReason, Direction, Identity, Phase, PresidentStatus, RevealReason, Room, RoundOutcome, ScoreReason } from "../generated/arena/v1/assassination/index.js";

export { ACE, CLUBS, DIAMONDS, HEARTS, JACK, JOKER, KING, QUEEN, SPADES } from "./common.js";

export const GAME = "assassination";
export type View = pb.View__Output;
export type Decision = pb.Decision__Output;
export type Action = pb.Action;
export type Event = pb.Event__Output;
export type Kind = NonNullable<Decision["kind"]>;
type Card = CardLike;
type RoomId = pb.Room__Output;
type DirectionId = pb.Direction__Output;

export const { UP, DOWN, LEFT, RIGHT, STAY } = Direction;
export const { COURTYARD, HALL, PODIUM, TOWER, HELIPAD, BUNKER, SECURITY_OFFICE, HOLDING_CELL, HEALTH_SERVICES, PUBLIC_EXIT } = Room;
export const MOVES: readonly DirectionId[] = [UP, DOWN, LEFT, RIGHT];

export const GRID: readonly (readonly (RoomId | null)[])[] = [
  [Room.TOWER, Room.SECURITY_OFFICE, Room.HEALTH_SERVICES, null],
  [Room.PODIUM, Room.COURTYARD, Room.HALL, Room.HELIPAD],
  [null, null, Room.PUBLIC_EXIT, Room.BUNKER],
];

/** Each room's (row, column); the holding cell is in the security office. */
export const POSITION = new Map<RoomId, [number, number]>();
GRID.forEach((row, r) => row.forEach((room, c) => room !== null && POSITION.set(room, [r, c])));
POSITION.set(Room.HOLDING_CELL, POSITION.get(Room.SECURITY_OFFICE) as [number, number]);

export const DELTA: ReadonlyMap<DirectionId, [number, number]> = new Map<DirectionId, [number, number]>([
  [UP, [-1, 0]],
  [DOWN, [1, 0]],
  [LEFT, [0, -1]],
  [RIGHT, [0, 1]],
]);
export const OPPOSITE: ReadonlyMap<DirectionId, DirectionId> = new Map<DirectionId, DirectionId>([
  [UP, DOWN],
  [DOWN, UP],
  [LEFT, RIGHT],
  [RIGHT, LEFT],
]);
const SUIT_DIRECTION = new Map<number, DirectionId>([
  [4, UP], // spades
  [1, RIGHT], // clubs
  [3, DOWN], // hearts
  [2, LEFT], // diamonds
]);

export function neighbour(room: RoomId, direction: DirectionId): RoomId | null {
  const delta = DELTA.get(direction);
  const at = POSITION.get(room);
  if (!delta || !at) return null;
  const [r, c] = [at[0] + delta[0], at[1] + delta[1]];
  return GRID[r]?.[c] ?? null;
}

export function adjacent(room: RoomId): RoomId[] {
  return MOVES.map((d) => neighbour(room, d)).filter((n): n is RoomId => n !== null);
}

/** Where a piece in `room` goes on a card of `direction`. */
export function step(room: RoomId, direction: DirectionId): RoomId {
  if (room === Room.HOLDING_CELL || direction === STAY) return room;
  const target = neighbour(room, direction);
  if (target !== null) return target;
  const back = neighbour(room, OPPOSITE.get(direction) as DirectionId);
  return back ?? room;
}

/** The direction of the first card on a shortest way from `start` to `goal` (STAY if there). */
export function firstStep(start: RoomId, goal: RoomId): DirectionId {
  if (start === goal) return STAY;
  const seen = new Map<RoomId, DirectionId>([[start, STAY]]);
  const queue: RoomId[] = [start];
  while (queue.length) {
    const room = queue.shift() as RoomId;
    for (const d of MOVES) {
      const next = step(room, d);
      if (!seen.has(next)) {
        seen.set(next, room !== start ? (seen.get(room) as DirectionId) : d);
        if (next === goal) return seen.get(next) as DirectionId;
        queue.push(next);
      }
    }
  }
  return STAY;
}

/** Movement cards needed from `start` to `goal` (99 if unreachable). */
export function distance(start: RoomId, goal: RoomId): number {
  const dist = new Map<RoomId, number>([[start, 0]]);
  const queue: RoomId[] = [start];
  while (queue.length) {
    const room = queue.shift() as RoomId;
    if (room === goal) return dist.get(room) as number;
    for (const d of MOVES) {
      const next = step(room, d);
      if (!dist.has(next)) {
        dist.set(next, (dist.get(room) as number) + 1);
        queue.push(next);
      }
    }
  }
  return 99;
}

export const colourOf = (card: Card): number => Math.floor((card.id ?? 0) / 108);
export const isMovement = (card: Card): boolean => Math.floor((card.id ?? 0) / 54) % 2 === 0;
export const isAction = (card: Card): boolean => !isMovement(card) && rankOf(card) === ACE;

/** Where a movement card sends its piece. */
export function directionOf(card: Card): DirectionId {
  const rank = rankOf(card);
  if (rank === ACE || rank === JOKER) return STAY;
  return SUIT_DIRECTION.get(suitOf(card)) ?? STAY;
}

// --- action builders ----------------------------------------------------------------------

export function allegiance(badCop: boolean): Action {
  return { chooseAllegiance: { badCop } };
}

export function movement(card: CardRef): Action {
  return { playMovement: { cardId: id(card) } };
}

export function movePresident(room: RoomId): Action {
  return { movePresident: { room } };
}

export function event(card: CardRef): Action {
  return { playEvent: { cardId: id(card) } };
}

/** The action for one of an ActionChoice's options. */
export function take(option: pb.ActionOption__Output): Action {
  const act: pb.TakeAction = { kind: option.kind };
  if (option.targetColour !== undefined && option.targetColour !== null) act.targetColour = option.targetColour;
  if (option.targetRoom !== undefined && option.targetRoom !== null) act.targetRoom = option.targetRoom;
  return { takeAction: act };
}

export function react(detain: boolean): Action {
  return { react: { detain } };
}

/** The answer to a SniperDetentionChoice: only the bad cop (`canIgnore`) may answer false. */
export function detainSniper(detain: boolean): Action {
  return { detainSniper: { detain } };
}

/** The answer to a CellChoice: only the police officer the agent detained (`canLeave`) may answer true. */
export function leaveCell(leave: boolean): Action {
  return { leaveCell: { leave } };
}

export function startRound(): Action {
  return { startRound: {} };
}

/** A movement card of `direction` from `hand` (the lowest id), if any. */
export function cardFor(hand: readonly Card[], direction: DirectionId): number | null {
  const found = hand.filter((c) => directionOf(c) === direction).map((c) => c.id ?? 0);
  return found.length ? Math.min(...found) : null;
}

/** A legal action chosen at random from the decision alone. */
export function sample(request: Request<any>, rng: Rng): Action {
  const r = forGame(request, GAME);
  const allegianceChoice = r.choiceFor("allegianceChoice");
  if (allegianceChoice) return allegiance(allegianceChoice.policeOfficer && rng.chance(0.5));
  const movementChoice = r.choiceFor("movementChoice");
  if (movementChoice) return movement(rng.choice(movementChoice.playable));
  const president = r.choiceFor("presidentMoveChoice");
  if (president) return movePresident(rng.choice(president.rooms));
  const eventChoice = r.choiceFor("eventChoice");
  if (eventChoice) return event(rng.choice(eventChoice.playable));
  const actionChoice = r.choiceFor("actionChoice");
  if (actionChoice) return take(rng.choice(actionChoice.options));
  const reaction = r.choiceFor("reactionChoice");
  if (reaction) return react(reaction.canDetain && rng.chance(0.5));
  const sniper = r.choiceFor("sniperDetentionChoice");
  if (sniper) return detainSniper(!(sniper.canIgnore && rng.chance(0.5)));
  const cell = r.choiceFor("cellChoice");
  if (cell) return leaveCell(cell.canLeave && rng.chance(0.5));
  return startRound();
}
