/**
 * The protocol at run time: @grpc/proto-loader builds it from the JSON descriptor in
 * generated/descriptor.ts (made from proto/arena/v1/*.proto by scripts/gen-types.mjs), so the SDK
 * and a bundled bot read no .proto file. The options match the generated types: camelCase
 * fields, 64-bit integers as numbers, enums as numbers, defaults filled in, and a virtual field
 * per oneof naming the member that is set.
 */

import * as grpc from "@grpc/grpc-js";
import * as protoLoader from "@grpc/proto-loader";

import { descriptor } from "./generated/descriptor.js";
import type { BotMessage__Output } from "./generated/arena/v1/BotMessage.js";
import type { RefereeMessage } from "./generated/arena/v1/RefereeMessage.js";
import type { ProtoGrpcType } from "./generated/referee.js";
import type { BotMessage, RefereeMessage as RefereeMessageOutput } from "./types.js";

export const PROTOCOL_VERSION = 1;

export const LOAD_OPTIONS: protoLoader.Options = { keepCase: false, longs: Number, defaults: true, oneofs: true };

let definition: protoLoader.PackageDefinition | undefined;

export function packageDefinition(): protoLoader.PackageDefinition {
  definition ??= protoLoader.fromJSON(descriptor, LOAD_OPTIONS);
  return definition;
}

/** The arena.v1 package for @grpc/grpc-js: `protocol().arena.v1.Referee` is the client class. */
export function protocol(): ProtoGrpcType {
  return grpc.loadPackageDefinition(packageDefinition()) as unknown as ProtoGrpcType;
}

function play(): protoLoader.MethodDefinition<BotMessage, RefereeMessage, BotMessage__Output, RefereeMessageOutput> {
  const service = packageDefinition()["arena.v1.Referee"] as protoLoader.ServiceDefinition;
  return service["Play"] as protoLoader.MethodDefinition<BotMessage, RefereeMessage, BotMessage__Output, RefereeMessageOutput>;
}

/** A BotMessage's bytes on the wire. */
export function encodeBotMessage(msg: BotMessage): Buffer {
  return play().requestSerialize(msg);
}

/** A BotMessage from its bytes, as the referee reads it (every field present). */
export function decodeBotMessage(bytes: Buffer): BotMessage__Output {
  return play().requestDeserialize(bytes);
}

/** A RefereeMessage's bytes (for tests that play the referee's part). */
export function encodeRefereeMessage(msg: RefereeMessage): Buffer {
  return play().responseSerialize(msg);
}

/** A RefereeMessage from its bytes, as the SDK receives it. */
export function decodeRefereeMessage(bytes: Buffer): RefereeMessageOutput {
  return play().responseDeserialize(bytes);
}
