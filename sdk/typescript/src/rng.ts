/**
 * A small seeded random number generator (sfc32), so that a bot seeded from ARENA_BOT_SEED
 * plays the same match the same way. The method names follow Python's `random.Random`.
 */

import { randomBytes } from "node:crypto";

/** Four 32-bit words from any string (cyrb128). */
function hash128(text: string): [number, number, number, number] {
  let h1 = 1779033703,
    h2 = 3144134277,
    h3 = 1013904242,
    h4 = 2773480762;
  for (let i = 0; i < text.length; i++) {
    const k = text.charCodeAt(i);
    h1 = h2 ^ Math.imul(h1 ^ k, 597399067);
    h2 = h3 ^ Math.imul(h2 ^ k, 2869860233);
    h3 = h4 ^ Math.imul(h3 ^ k, 951274213);
    h4 = h1 ^ Math.imul(h4 ^ k, 2716044179);
  }
  h1 = Math.imul(h3 ^ (h1 >>> 18), 597399067);
  h2 = Math.imul(h4 ^ (h2 >>> 22), 2869860233);
  h3 = Math.imul(h1 ^ (h3 >>> 17), 951274213);
  h4 = Math.imul(h2 ^ (h4 >>> 19), 2716044179);
  return [(h1 ^ h2 ^ h3 ^ h4) >>> 0, (h2 ^ h1) >>> 0, (h3 ^ h1) >>> 0, (h4 ^ h1) >>> 0];
}

export class Rng {
  private a: number;
  private b: number;
  private c: number;
  private d: number;

  /** Seeded from ``seed`` (a number or any text); unseeded, from the operating system. */
  constructor(seed?: number | string | null) {
    const text = seed === undefined || seed === null || seed === "" ? randomBytes(16).toString("hex") : String(seed);
    [this.a, this.b, this.c, this.d] = hash128(text);
    for (let i = 0; i < 15; i++) this.next32();
  }

  /** Seeded from ARENA_BOT_SEED (the referee sets it, so a match seed replays the same match). */
  static fromEnv(): Rng {
    return new Rng(process.env.ARENA_BOT_SEED);
  }

  private next32(): number {
    const t = (((this.a + this.b) | 0) + this.d) | 0;
    this.d = (this.d + 1) | 0;
    this.a = this.b ^ (this.b >>> 9);
    this.b = (this.c + (this.c << 3)) | 0;
    this.c = (this.c << 21) | (this.c >>> 11);
    this.c = (this.c + t) | 0;
    return t >>> 0;
  }

  /** A float in [0, 1). */
  random(): number {
    return this.next32() / 4294967296;
  }

  /** An integer in [0, n). */
  randrange(n: number): number {
    if (!(n >= 1)) throw new RangeError(`randrange(${n}): empty range`);
    return Math.floor(this.random() * Math.floor(n));
  }

  /** An integer in [lo, hi], both included. */
  randint(lo: number, hi: number): number {
    if (hi < lo) throw new RangeError(`randint(${lo}, ${hi}): empty range`);
    return lo + this.randrange(hi - lo + 1);
  }

  /** True with probability ``p``. */
  chance(p: number): boolean {
    return this.random() < p;
  }

  /** One item; throws on an empty list. */
  choice<T>(items: readonly T[]): T {
    if (items.length === 0) throw new RangeError("choice from an empty list");
    return items[this.randrange(items.length)] as T;
  }

  /** Shuffles ``items`` in place and returns it. */
  shuffle<T>(items: T[]): T[] {
    for (let i = items.length - 1; i > 0; i--) {
      const j = this.randrange(i + 1);
      [items[i], items[j]] = [items[j] as T, items[i] as T];
    }
    return items;
  }

  /** ``k`` distinct items in random order. */
  sample<T>(items: readonly T[], k: number): T[] {
    if (k < 0 || k > items.length) throw new RangeError(`sample of ${k} from ${items.length} items`);
    return this.shuffle([...items]).slice(0, k);
  }

  /** Each item kept with probability ``p`` (in order). */
  some<T>(items: readonly T[], p = 0.5): T[] {
    return items.filter(() => this.random() < p);
  }
}
