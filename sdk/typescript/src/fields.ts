/**
 * An action's fields checked against the protocol before it is encoded. The encoding converts what it is given
 * without a word (a string or `true` where a number belongs is sent as 0 or 1, `"false"` where a bool belongs as
 * true, an unknown enum name as 0), so that a slip past the types (`as any`, a value read from JSON) reached the
 * referee as another action, and drops a name that is no field (`cardIdz` for `cardIds`) as silently, so that the
 * referee refused an action the bot never meant. Only the fields the action sets are walked: a few per decision.
 */

import { descriptor } from "./generated/descriptor.js";

interface FieldJson {
  type: string;
  rule?: string;
  keyType?: string;
}

interface NodeJson {
  nested?: Record<string, NodeJson>;
  fields?: Record<string, FieldJson>;
  values?: Record<string, number>;
  oneofs?: Record<string, unknown>;
}

/** What a field holds: a scalar type's name, an enum's values, or a message's fields (by their full name). */
type Shape = { scalar: string } | { enumName: string; values: Record<string, number> } | { message: string };

interface Field {
  shape: Shape;
  repeated: boolean;
  map: boolean;
}

interface Message {
  fields: Map<string, Field>;
  /** Names that are no field but may be set: its oneofs' (the `kind` protobufjs adds, the `_x` of an optional x). */
  oneofs: Set<string>;
  /** An envelope Action or a game's Action, whose names that are no field (another game's, a kind of another game)
   * are left to `wrap`, which says the action is not one of the game's. */
  kinds: boolean;
  /** Its fields as an error lists them. */
  listed: string;
}

let messages: Map<string, Message> | undefined;

/** Every message of the descriptor by its full name, its fields' types resolved as protobufjs resolves them. */
function index(): Map<string, Message> {
  if (messages) return messages;
  const nodes = new Map<string, NodeJson>();
  const walk = (node: NodeJson, name: string): void => {
    if (name) nodes.set(name, node);
    for (const [key, child] of Object.entries(node.nested ?? {})) walk(child, name ? `${name}.${key}` : key);
  };
  walk(descriptor as NodeJson, "");
  const resolve = (type: string, scope: string): string => {
    // A name is looked up in the message, then each enclosing namespace outward, as protobufjs does.
    for (let at = scope; ; at = at.includes(".") ? at.slice(0, at.lastIndexOf(".")) : "") {
      const full = at ? `${at}.${type}` : type;
      if (nodes.has(full)) return full;
      if (!at) throw new Error(`the protocol names an unknown type ${type} (in ${scope})`);
    }
  };
  messages = new Map();
  for (const [name, node] of nodes) {
    if (!node.fields) continue;
    const fields = new Map<string, Field>();
    for (const [key, f] of Object.entries(node.fields)) {
      let shape: Shape;
      if (SCALARS.has(f.type)) {
        shape = { scalar: f.type };
      } else {
        const full = resolve(f.type.replace(/^\./, ""), name);
        const target = nodes.get(full)!;
        shape = target.values ? { enumName: full, values: target.values } : { message: full };
      }
      fields.set(key, { shape, repeated: f.rule === "repeated", map: f.keyType !== undefined });
    }
    const listed = fields.size ? `whose fields are ${[...fields.keys()].join(", ")}` : "which has no fields";
    messages.set(name, { fields, oneofs: new Set(Object.keys(node.oneofs ?? {})), kinds: false, listed });
  }
  const envelope = messages.get(ACTION);
  if (envelope) {
    envelope.kinds = true;
    for (const field of envelope.fields.values()) if ("message" in field.shape) messages.get(field.shape.message)!.kinds = true;
  }
  return messages;
}

const ACTION = "arena.v1.Action";

/** The kinds of the game whose field in the envelope is `field` ("generalsWar"), as a bot names them; [] for no game. */
export function actionKinds(field: string): string[] {
  const shape = index().get(ACTION)?.fields.get(field)?.shape;
  return shape && "message" in shape ? [...index().get(shape.message)!.fields.keys()] : [];
}
const INT32: [number, number, string] = [-(2 ** 31), 2 ** 31 - 1, "int32"];
const UINT32: [number, number, string] = [0, 2 ** 32 - 1, "uint32"];
const RANGES: Record<string, [number, number, string]> = {
  int32: INT32,
  sint32: INT32,
  sfixed32: INT32,
  uint32: UINT32,
  fixed32: UINT32,
};
const INT64 = new Set(["int64", "sint64", "sfixed64", "uint64", "fixed64"]);
const SCALARS = new Set([...Object.keys(RANGES), ...INT64, "bool", "string", "double", "float", "bytes"]);

/** The value as an error names it: `the string "3"`, `true`, `an object`. */
function got(value: unknown): string {
  if (typeof value === "string") return `the string ${JSON.stringify(value.length > 40 ? `${value.slice(0, 37)}...` : value)}`;
  if (Array.isArray(value)) return "an array";
  if (typeof value === "object") return "an object";
  if (typeof value === "bigint") return `the bigint ${value}n`;
  return String(value);
}

/** Why `value` cannot be a `shape`, or null when it can. */
function scalarFault(shape: Shape, value: unknown): string | null {
  if ("message" in shape) return typeof value === "object" && !Array.isArray(value) ? null : `an object (${shape.message})`;
  if ("enumName" in shape) {
    if (typeof value === "number" ? Number.isInteger(value) : typeof value === "string" && Object.hasOwn(shape.values, value)) return null;
    // Not the _UNSPECIFIED 0: the referee refuses an action's enum left at it (an enum of an action has no other 0).
    return `one of ${Object.keys(shape.values).filter((name) => shape.values[name] !== 0).join(", ")} or its number (${shape.enumName})`;
  }
  const type = shape.scalar;
  const range = RANGES[type];
  if (range) {
    const [low, high, name] = range;
    return typeof value === "number" && Number.isInteger(value) && value >= low && value <= high ? null : `a whole number from ${low} to ${high} (${name})`;
  }
  if (INT64.has(type)) {
    const unsigned = type.startsWith("u") || type === "fixed64";
    const fine =
      (typeof value === "number" && Number.isSafeInteger(value) && (!unsigned || value >= 0)) ||
      (typeof value === "string" && (unsigned ? /^\d+$/ : /^-?\d+$/).test(value)) ||
      (typeof value === "object" && value !== null && "low" in value && "high" in value); // a Long
    return fine ? null : `a whole number${unsigned ? " from 0" : ""} (${type}; or its digits as a string)`;
  }
  if (type === "bool") return typeof value === "boolean" ? null : "true or false (bool)";
  if (type === "string") return typeof value === "string" ? null : "a string";
  if (type === "double" || type === "float") return typeof value === "number" ? null : `a number (${type})`;
  return null; // bytes: a Buffer, an array of bytes or base64, as the encoding takes them
}

/**
 * The first field of `value` (a message of type `type`, "arena.v1.Action" by default) whose value its type cannot
 * hold, as `generalsWar.playSquad.cardIds[1] is the string "x", where a whole number from 0 to 4294967295 (uint32)
 * belongs`, or whose name is no field of its message, as `generalsWar.playSquad.cardIdz is no field of
 * arena.v1.generals_war.PlaySquad, whose fields are cardIds`; null when every field it sets can be encoded as it is.
 * A oneof's name (the `kind` of a decoded message) is no field but is let through, as the encoding ignores it, and so
 * is any name in an Action, the envelope's or a game's: `wrap` refuses what is not one of the game's kinds.
 */
export function fieldFault(value: unknown, type = ACTION, path = ""): string | null {
  const message = index().get(type);
  if (!message) throw new Error(`no message ${type} in the protocol`);
  if (typeof value !== "object" || value === null) return null;
  for (const [key, v] of Object.entries(value)) {
    if (v === undefined || v === null) continue; // unset
    const field = message.fields.get(key);
    const at = path ? `${path}.${key}` : key;
    if (!field) {
      if (message.kinds || message.oneofs.has(key)) continue;
      return `${at} is no field of ${type}, ${message.listed}`; // the encoding would drop it without a word
    }
    if (field.map) {
      if (typeof v !== "object" || Array.isArray(v)) return `${at} is ${got(v)}, where an object of values belongs`;
      for (const [k, item] of Object.entries(v)) {
        const fault = itemFault(field.shape, item, `${at}.${k}`);
        if (fault) return fault;
      }
    } else if (field.repeated) {
      if (!Array.isArray(v)) return `${at} is ${got(v)}, where an array belongs`;
      for (let i = 0; i < v.length; i++) {
        const fault = itemFault(field.shape, v[i], `${at}[${i}]`);
        if (fault) return fault;
      }
    } else {
      const fault = itemFault(field.shape, v, at);
      if (fault) return fault;
    }
  }
  return null;
}

function itemFault(shape: Shape, value: unknown, at: string): string | null {
  const wanted = scalarFault(shape, value);
  if (wanted) return `${at} is ${got(value)}, where ${wanted} belongs`;
  return "message" in shape ? fieldFault(value, shape.message, at) : null;
}
