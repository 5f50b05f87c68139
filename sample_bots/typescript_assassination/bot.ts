/**
 * ts-assassination: a heuristic Assassination Game bot written with the TypeScript SDK.
 *
 * The plan of the Python heuristic bot (sample_bots/assassination_heuristic). Nobody knows which
 * piece is whose until an action card reveals it, so the bot plays one only when it has something
 * worth doing: it never reveals itself to detain a stranger who may be the reporter or the police
 * officer. By identity:
 *
 * - sniper: climbs to the tower before the speech and snipes if alone there (the surest kill);
 *   shoots the president point-blank only when nobody else is in the room; after an incident
 *   heads for the public exit, where an assassin escapes;
 * - bomber: walks onto the podium (planting the bomb there), waits next door in the courtyard and
 *   blows the podium up under the president; else blows up any enclosed room it planted when the
 *   president is in it (open air often spares him); then escapes;
 * - Secret Service agent: sits in the tower before the speech (a sniper must be alone there to
 *   shoot), then shadows the president; after an incident takes him to the nearest refuge;
 * - police officer: the same watch on the tower; after an incident shoots a revealed assassin in
 *   his room, or else detains one; he always stays good.
 *
 * It draws no random numbers: a deal is always played the same way. main.ts runs it;
 * sdk/typescript/scripts/build-bots.sh bundles main.ts into dist/main.js (scripts/setup.sh runs that).
 */

import { assassination as asn, Bot, type CardLike, type ChoiceOf, type Request } from "arena-sdk";

const { ActionKind, Direction, Identity, Room } = asn;
const { KILLED, INJURED } = asn.PresidentStatus;
type View = asn.View;
type RoomId = asn.pb.Room__Output;
type Wanted = { kind: asn.pb.ActionKind__Output; colour?: number; room?: RoomId };

const ASSASSINS: readonly number[] = [Identity.SNIPER, Identity.BOMBER];
/** Rooms whose blast kills an unhurt president two times in three (open air only wounds him). */
const ENCLOSED: readonly RoomId[] = [Room.PODIUM, Room.HALL, Room.PUBLIC_EXIT, Room.HEALTH_SERVICES, Room.TOWER, Room.BUNKER];
/** Rooms the agent may walk the president through. */
const ESCORT = new Set<RoomId>(
  [...asn.POSITION.keys()].filter((r) => r !== Room.TOWER && r !== Room.SECURITY_OFFICE && r !== Room.HOLDING_CELL),
);
const PHOTO_OP: readonly RoomId[] = [Room.PODIUM, Room.COURTYARD, Room.HALL, Room.PUBLIC_EXIT];

export class AssassinationBot extends Bot<"assassination"> {
  override name = "ts-assassination";
  override version = "1.0.0";

  act(request: Request<"assassination">): asn.Action {
    const view = request.view;
    const movement = request.choiceFor("movementChoice");
    if (movement) return asn.movement(movementCard(view, movement.playable));
    const events = request.choiceFor("eventChoice");
    if (events) {
      // An action card reveals its owner to everyone: play one only with something to do, or nothing else left.
      const byId = [...events.playable].sort((a, b) => a.id - b.id);
      const action = byId.find(asn.isAction);
      const idle = byId.find((c) => !asn.isAction(c));
      return asn.event(action && (wanted(view) || !idle) ? action : (idle ?? byId[0]!));
    }
    const options = request.choiceFor("actionChoice")?.options;
    if (options) return asn.take(options.find((o) => matches(o, wanted(view))) ?? options[0]!); // the first is doing nothing
    const president = request.choiceFor("presidentMoveChoice");
    if (president) return asn.movePresident(presidentRoom(view, president));
    const reaction = request.choiceFor("reactionChoice");
    if (reaction) return asn.react(reaction.canDetain); // the bomber next to us: +1 to each good guy
    const sniper = request.choiceFor("sniperDetentionChoice");
    if (sniper) return asn.detainSniper(!sniper.canIgnore); // the bad cop lets his side go
    const cell = request.choiceFor("cellChoice");
    if (cell) return asn.leaveCell(cell.canLeave); // out of the cell, free to act again
    if (request.choiceFor("allegianceChoice")) return asn.allegiance(false);
    return asn.startRound();
  }
}

// --- what the table looks like -----------------------------------------------------------------

/** Where a piece stands; null once it is dead. */
const roomOf = (view: View, colour: number): RoomId | null => view.pieces[colour]?.room ?? null;

/** Identity by colour, for the pieces revealed this round (the reporter's too). */
function known(view: View): Map<number, number> {
  const out = new Map<number, number>(view.revealed.map((r) => [r.colour, r.identity]));
  if (view.reporterColour !== undefined) out.set(view.reporterColour, Identity.REPORTER);
  return out;
}

/** The other living pieces in our room (nobody shares the holding cell). */
function company(view: View): number[] {
  const here = roomOf(view, view.colour);
  if (here === null || here === Room.HOLDING_CELL) return [];
  return view.pieces.filter((p) => p.colour !== view.colour && !p.killed && p.room === here).map((p) => p.colour);
}

/** Revealed sniper or bomber pieces in our room and still free. */
function assassinsHere(view: View): number[] {
  const ids = known(view);
  return company(view).filter((c) => ASSASSINS.includes(ids.get(c) ?? 0) && !view.pieces[c]!.detained);
}

// --- moving ------------------------------------------------------------------------------------

function targetRoom(view: View): RoomId {
  const president = view.president!;
  switch (view.identity) {
    case Identity.SNIPER:
      if (view.incident) return Room.PUBLIC_EXIT;
      return president.speechGiven ? nextPhotoOpRoom(president.room) : Room.TOWER;
    case Identity.BOMBER: {
      if (view.bombUsed || view.incident) return Room.PUBLIC_EXIT;
      if (president.secretServiceMoves) return president.room;
      // Plant a room on his way (the podium, then the hall), then wait next to it.
      const visited = view.pieces[view.colour]!.visited;
      if (!president.speechGiven) return visited.includes(Room.PODIUM) ? Room.COURTYARD : Room.PODIUM;
      return visited.includes(Room.HALL) ? Room.HEALTH_SERVICES : Room.HALL;
    }
    case Identity.POLICE_OFFICER:
      if (view.incident) {
        const ids = known(view);
        for (const [colour, identity] of ids) {
          const room = roomOf(view, colour);
          if (ASSASSINS.includes(identity) && room !== null && room !== Room.HOLDING_CELL) return room; // to shoot him
        }
      }
  }
  // The good guys guard the tower until the speech (a sniper must be alone there), then the president.
  if (!view.incident && !president.speechGiven && !president.secretServiceMoves) return Room.TOWER;
  return president.room;
}

/** Where the photo op takes the president next. */
function nextPhotoOpRoom(room: RoomId): RoomId {
  const at = PHOTO_OP.indexOf(room);
  return at >= 0 && at < PHOTO_OP.length - 1 ? PHOTO_OP[at + 1]! : room;
}

function movementCard(view: View, hand: readonly CardLike[]): number {
  const lowest = Math.min(...hand.map((c) => c.id ?? 0));
  const here = roomOf(view, view.colour);
  if (here === null || here === Room.HOLDING_CELL) return lowest; // the card moves nobody
  const goal = targetRoom(view);
  const card = asn.cardFor(hand, asn.firstStep(here, goal));
  if (card !== null) return card;
  // No card that way: another step as short, else one that does not take us further, standing still first.
  const now = asn.distance(here, goal);
  const tries = [...asn.MOVES.map((d) => [d, now - 1] as const), ...[Direction.STAY, ...asn.MOVES].map((d) => [d, now] as const)];
  for (const [d, allowed] of tries) {
    const other = asn.cardFor(hand, d);
    if (other !== null && asn.distance(asn.step(here, d), goal) <= allowed) return other;
  }
  return lowest;
}

// --- acting ------------------------------------------------------------------------------------

/** The action worth revealing ourselves for now, or null. */
function wanted(view: View): Wanted | null {
  const president = view.president!;
  const here = roomOf(view, view.colour);
  if (here === null) return null;
  const alive = president.status !== KILLED;
  const alone = company(view).length === 0;
  switch (view.identity) {
    case Identity.SNIPER:
      if (here === Room.HOLDING_CELL || !alive || !alone) return null; // a witness would see us shoot
      if (here === Room.TOWER && president.room === Room.PODIUM) return { kind: ActionKind.SNIPE };
      return president.room === here ? { kind: ActionKind.SHOOT_PRESIDENT } : null;
    case Identity.BOMBER: {
      const target = president.room;
      const planted = view.pieces[view.colour]!.visited.includes(target);
      if (view.bombUsed || !alive || !planted || target === Room.SECURITY_OFFICE || !asn.adjacent(here).includes(target)) return null;
      // In the open air an unhurt president is only wounded: wait for an enclosed room, unless it is the last chance.
      const lastChance = view.incident && target === Room.HELIPAD;
      return ENCLOSED.includes(target) || president.status === INJURED || lastChance ? { kind: ActionKind.DETONATE, room: target } : null;
    }
  }
  const assassins = assassinsHere(view);
  if (view.identity === Identity.POLICE_OFFICER) {
    if (here === Room.HOLDING_CELL) return { kind: ActionKind.LEAVE_CELL };
    if (assassins.length && view.incident) return { kind: ActionKind.SHOOT_PLAYER, colour: assassins[0]! };
  }
  return assassins.length ? { kind: ActionKind.DETAIN, colour: assassins[0]! } : null;
}

function matches(option: asn.pb.ActionOption__Output, want: Wanted | null): boolean {
  return (
    want !== null &&
    option.kind === want.kind &&
    (want.colour === undefined || option.targetColour === want.colour) &&
    (want.room === undefined || option.targetRoom === want.room)
  );
}

// --- the president -----------------------------------------------------------------------------

function presidentRoom(view: View, choice: ChoiceOf<"assassination", "presidentMoveChoice">): RoomId {
  const president = view.president!;
  const best = (cost: (room: RoomId) => number): RoomId => choice.rooms.reduce((a, b) => (cost(b) < cost(a) ? b : a));
  if (choice.escaping) {
    // The nearest refuge, the bunker on a tie: he is safe there at once, on the helipad only after an action stage.
    return best((r) => {
      const [bunker, helipad] = [escorted(r, Room.BUNKER), escorted(r, Room.HELIPAD)];
      return Math.min(bunker, helipad) + (bunker <= helipad ? 0 : 0.5);
    });
  }
  const next = nextPhotoOpRoom(president.room);
  if (president.speechGiven && next !== president.room && choice.rooms.includes(next)) return next;
  return best((r) => escorted(r, president.speechGiven ? Room.PUBLIC_EXIT : Room.PODIUM));
}

/** Rooms the president crosses from `start` to `goal` when the agent walks him. */
function escorted(start: RoomId, goal: RoomId): number {
  // A breadth-first search: iterating a Map reaches the rooms added meanwhile, in the order added.
  const dist = new Map<RoomId, number>([[start, 0]]);
  for (const room of dist.keys()) {
    if (room === goal) return dist.get(room)!;
    for (const next of asn.adjacent(room)) if (ESCORT.has(next) && !dist.has(next)) dist.set(next, dist.get(room)! + 1);
  }
  return 99;
}
