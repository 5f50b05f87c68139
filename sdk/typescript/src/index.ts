/** Arena bot SDK for TypeScript: subclass `Bot`, implement `act`, call `run`. */

export { Bot, Request } from "./bot.js";
export { BotDriver, wrap } from "./driver.js";
export { KEEPALIVE, MatchRefused, play, run, type PlayOptions } from "./client.js";
export { assassination, generalsAndAssassins, generalsWar, glory, landAndCastle, randomAction, SAMPLERS } from "./games/index.js";
export { type CardLike, type CardRef, ids, subsets } from "./games/common.js";
export { Logger, log } from "./log.js";
export {
  decodeBotMessage,
  decodeRefereeMessage,
  encodeBotMessage,
  encodeRefereeMessage,
  LOAD_OPTIONS,
  packageDefinition,
  protocol,
  PROTOCOL_VERSION,
} from "./protocol.js";
export { Rng } from "./rng.js";
export * from "./types.js";
export { Rank } from "./generated/arena/v1/Rank.js";
export { Suit } from "./generated/arena/v1/Suit.js";
export { ErrorCode } from "./generated/arena/v1/ErrorCode.js";
export { VerdictKind } from "./generated/arena/v1/VerdictKind.js";
/** Every generated message type of the envelope package (arena.v1), such as `v1.GameStart__Output`. */
export * as v1 from "./generated/arena/v1/index.js";
