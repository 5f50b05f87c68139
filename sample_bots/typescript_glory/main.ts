/** The bot's process: play the match the referee started it for. */

import { run } from "arena-sdk";

import { GloryBot } from "./bot.js";

void run(new GloryBot());
