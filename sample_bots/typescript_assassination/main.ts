/** The bot's process: play the match the referee started it for. */

import { run } from "arena-sdk";

import { AssassinationBot } from "./bot.js";

void run(new AssassinationBot());
