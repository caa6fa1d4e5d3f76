import assert from "node:assert/strict";
import { BodyBudget, SMALL_BODY_BYTES } from "./body_budget.ts";

const MiB = 1024 * 1024;

Deno.test("BodyBudget: an address gets its share, and the rest is left to the others", () => {
  const budget = new BodyBudget({ totalBytes: 12 * MiB, perAddressBytes: 8 * MiB });
  const first = budget.open("a");
  const second = budget.open("a");
  assert.equal(first.grow(4 * MiB), undefined);
  assert.equal(second.grow(3 * MiB), undefined);
  // 7 MiB held: a large body may not take the last eighth of the address's 8 MiB.
  assert.equal(budget.open("a").grow(SMALL_BODY_BYTES + 1), "address");
  assert.equal(budget.held("a"), 7 * MiB);
  // Another address still has room, up to the shared total's seven eighths (10.5 MiB).
  const other = budget.open("b");
  assert.equal(other.grow(7 * MiB), "total");
  assert.equal(other.grow(3 * MiB), undefined);
  assert.equal(budget.held(), 10 * MiB);
  assert.equal(budget.held("b"), 3 * MiB);
});

Deno.test("BodyBudget: small bodies keep the last eighth of each budget", () => {
  const budget = new BodyBudget({ totalBytes: 64 * MiB, perAddressBytes: 8 * MiB });
  const large = budget.open("a");
  assert.equal(large.grow(7 * MiB), undefined);
  assert.equal(budget.open("a").grow(MiB), "address", "large bodies stop at 7/8");
  const small = [];
  for (let i = 0; i < 16; i++) {
    const reservation = budget.open("a");
    assert.equal(reservation.grow(SMALL_BODY_BYTES), undefined, `small body ${i}`);
    small.push(reservation);
  }
  assert.equal(budget.open("a").grow(1), "address", "and small ones at the full budget");
  // A reservation is large once it grows past 64 KiB, whatever its first step.
  small[0].release();
  const growing = budget.open("a");
  assert.equal(growing.grow(1024), undefined);
  assert.equal(growing.grow(SMALL_BODY_BYTES), "address");
});

Deno.test("BodyBudget: public routes' bodies take at most half of either budget", () => {
  const budget = new BodyBudget({ totalBytes: 16 * MiB, perAddressBytes: 8 * MiB });
  // Slow small bodies of a public route (MCP) from one address stop at half of its budget.
  const held = [];
  for (let i = 0; i < 64; i++) {
    const reservation = budget.open("a", true);
    assert.equal(reservation.grow(SMALL_BODY_BYTES), undefined, `public body ${i}`);
    held.push(reservation);
  }
  assert.equal(budget.open("a", true).grow(1), "address");
  // A signed route's body from the same address still fits.
  assert.equal(budget.open("a").grow(SMALL_BODY_BYTES), undefined);
  // From other addresses, public bodies stop at half of the shared budget.
  for (const address of ["b", "c", "d"]) {
    const reservation = budget.open(address, true);
    for (let i = 0; i < 32; i++) reservation.grow(SMALL_BODY_BYTES);
  }
  assert.equal(budget.held(), 8 * MiB + SMALL_BODY_BYTES, "half public, and the signed body");
  assert.equal(budget.open("e", true).grow(1), "total");
  assert.equal(budget.open("e").grow(SMALL_BODY_BYTES), undefined, "a signed body fits");
  // Released, their room is public again.
  for (const reservation of held) reservation.release();
  assert.equal(budget.open("e", true).grow(SMALL_BODY_BYTES), undefined);
});

Deno.test("BodyBudget: releasing gives every byte back, once", () => {
  const budget = new BodyBudget({ totalBytes: 8 * MiB, perAddressBytes: 8 * MiB });
  const reservation = budget.open("a");
  assert.equal(reservation.grow(2 * MiB), undefined);
  assert.equal(reservation.grow(2 * MiB), undefined);
  assert.equal(reservation.bytes, 4 * MiB);
  const kept = budget.open("a");
  assert.equal(kept.grow(1024), undefined);
  reservation.release();
  reservation.release();
  assert.equal(budget.held(), 1024);
  assert.equal(budget.held("a"), 1024);
  kept.release();
  assert.equal(budget.held(), 0);
  assert.equal(budget.held("a"), 0);
  assert.throws(() => reservation.grow(1), /released/);
});
