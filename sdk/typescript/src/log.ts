/** Logging to stderr, which the referee keeps as the bot's log. The level comes from ARENA_LOG_LEVEL (DEBUG, INFO, WARNING, ERROR). */

const LEVELS = { DEBUG: 10, INFO: 20, WARNING: 30, ERROR: 40 } as const;
export type Level = keyof typeof LEVELS;

/** The level ARENA_LOG_LEVEL names, in any case (WARN is WARNING); undefined for an unknown one. Unset or empty is INFO. */
export function levelFrom(text: string | undefined): number | undefined {
  const key = (text || "INFO").trim().toUpperCase().replace(/^WARN$/, "WARNING") as Level;
  return LEVELS[key];
}

export class Logger {
  constructor(
    public prefix = "arena-sdk",
    public threshold = levelFrom(process.env.ARENA_LOG_LEVEL) ?? LEVELS.INFO,
  ) {}

  log(level: Level, message: string): void {
    if (LEVELS[level] >= this.threshold) process.stderr.write(`[${this.prefix}] ${level} ${message}\n`);
  }

  debug(message: string): void {
    this.log("DEBUG", message);
  }

  info(message: string): void {
    this.log("INFO", message);
  }

  warning(message: string): void {
    this.log("WARNING", message);
  }

  error(message: string): void {
    this.log("ERROR", message);
  }
}

/** The SDK's logger; `run` names it after the bot. */
export const log = new Logger();
