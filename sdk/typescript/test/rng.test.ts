/** The seeded generator's draws: every value of a range comes, and none outside it; the helpers keep to their promises. */

import assert from "node:assert/strict";
import { test } from "node:test";

import { Rng } from "arena-sdk";

/** How often each outcome of `draw` came in `n` draws, keyed by its JSON. */
function tally(n: number, draw: () => unknown): Map<string, number> {
  const seen = new Map<string, number>();
  for (let i = 0; i < n; i++) {
    const key = JSON.stringify(draw());
    seen.set(key, (seen.get(key) ?? 0) + 1);
  }
  return seen;
}

test("randrange, randint and choice reach every value of their range, the ends included, and nothing else", () => {
  const rng = new Rng(11);
  assert.deepEqual([...tally(500, () => rng.randrange(4)).keys()].sort(), ["0", "1", "2", "3"]);
  assert.deepEqual([...tally(500, () => rng.randint(2, 4)).keys()].sort(), ["2", "3", "4"]);
  assert.deepEqual([...tally(500, () => rng.randint(-1, -1)).keys()], ["-1"]);
  assert.deepEqual([...tally(500, () => rng.choice(["a", "b", "c"])).keys()].sort(), ['"a"', '"b"', '"c"']);
  assert.throws(() => rng.randrange(0), RangeError);
  assert.throws(() => rng.randint(3, 2), RangeError);
});

test("shuffle can give every order, the first one too; sample takes k distinct items and refuses more than there are", () => {
  const rng = new Rng("shuffle");
  const orders = tally(600, () => rng.shuffle([0, 1, 2]));
  assert.equal(orders.size, 6, `orders seen: ${[...orders.keys()].join(" ")}`);
  assert.ok(orders.has("[0,1,2]"), "leaving the items as they were is one of the orders");
  const firsts = tally(600, () => rng.sample([0, 1, 2, 3], 2)[0]);
  assert.equal(firsts.size, 4);
  assert.deepEqual(rng.sample([1, 2], 0), []);
  assert.equal(rng.sample([1, 2], 2).length, 2);
  assert.throws(() => rng.sample([1, 2], 3), RangeError);
  assert.throws(() => rng.sample([1, 2], -1), RangeError);
});

test("chance and some keep an item with the probability given", () => {
  const rng = new Rng(5);
  assert.ok(Array.from({ length: 100 }, () => rng.chance(1)).every(Boolean));
  assert.ok(!Array.from({ length: 100 }, () => rng.chance(0)).some(Boolean));
  const likely = Array.from({ length: 1000 }, () => rng.chance(0.9)).filter(Boolean).length;
  assert.ok(likely > 800 && likely < 980, `${likely} of 1000 at 0.9`);
  const items = Array.from({ length: 50 }, (_, i) => i);
  assert.deepEqual(rng.some(items, 1), items);
  assert.deepEqual(rng.some(items, 0), []);
  const kept = rng.some(items, 0.2);
  assert.deepEqual(kept, [...kept].sort((a, b) => a - b), "in order");
  assert.ok(kept.length < 25, `${kept.length} of 50 kept at 0.2`);
});

test("no seed, or an empty one, draws from the operating system: two such generators differ", () => {
  const draws = (rng: Rng) => Array.from({ length: 8 }, () => rng.random());
  assert.notDeepEqual(draws(new Rng()), draws(new Rng()));
  assert.notDeepEqual(draws(new Rng("")), draws(new Rng("")));
  assert.deepEqual(draws(new Rng("x")), draws(new Rng("x")));
});
