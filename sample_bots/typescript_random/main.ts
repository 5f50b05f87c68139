/** The bot's process: play the match the referee started it for (`--sample-only`: see bot.ts). */

import { run } from "arena-sdk";

import { TsRandomBot } from "./bot.js";

void run(new TsRandomBot(undefined, process.argv.includes("--sample-only")));
