/**
 * The Sponsor conformance suite: a sponsored transaction signed by its sender executes once;
 * replays, unknown and expired digests, bad signatures, malformed input and aborted calls are
 * refused, with the shared rejection reasons (`details.reason`) and their error codes.
 *
 * What differs between sponsors is supplied by the fixture: how a transaction kind is encoded
 * (the local ledger's JSON, Sui's BCS), what the sender signs (the ledger's digest, Sui's
 * transaction bytes) and the form of a digest (64 hex characters, base58). Refusals that only
 * one sponsor has (Sui's `not_sponsored` calls, the ledger's account rules) are tested with it.
 */
import assert from "node:assert/strict";
import type { Sponsor, SponsoredTransaction } from "../backends/types.ts";
import type { RejectionReason } from "../backends/rejection.ts";
import { type ErrorCode, SvcError } from "../errors.ts";

/** A sender as its wallet sees it. */
export interface SponsorSender {
  /** The sender's address: 0x and 64 lowercase hex characters. */
  address: string;
  /** A transaction kind of this sender's that the sponsor accepts (it creates an account). */
  kind: Uint8Array<ArrayBuffer>;
  /** The sender's signature of a sponsored transaction, as `execute` takes it. */
  sign(transaction: SponsoredTransaction): Promise<string>;
}

/** A sponsor under test, with what the suite cannot know about it. */
export interface SponsorFixture extends AsyncDisposable {
  /** The sponsor under test. */
  sponsor: Sponsor;
  /** A new sender, with nothing executed yet. */
  newSender(): Promise<SponsorSender>;
  /** A well-formed digest that no transaction has. */
  unknownDigest: string;
}

/** The clock and lifetime the sponsor must use for transactions awaiting their signature. */
export interface SponsorClock {
  /** The current time, in Unix milliseconds; the suite moves it forward. */
  now(): number;
  /** How long a sponsored transaction may wait for its signature. */
  ttlMs: number;
}

const refused = (code: ErrorCode, reason: RejectionReason) => (error: unknown) => {
  assert.ok(error instanceof SvcError, String(error));
  assert.equal(error.details.reason, reason, error.message);
  assert.equal(error.code, code, error.message);
  return true;
};

/** Registers the suite's tests for a sponsor that `open` makes with the given clock. */
export function sponsorSuite(name: string, open: (clock: SponsorClock) => Promise<SponsorFixture>) {
  const start = async () => {
    const clock = { at: 1_800_000_000_000, ttlMs: 60_000 };
    const fixture = await open({ now: () => clock.at, ttlMs: clock.ttlMs });
    return Object.assign(fixture, { clock });
  };

  Deno.test(`${name}: a sponsored transaction signed by its sender executes once`, async () => {
    await using t = await start();
    const sender = await t.newSender();
    const sponsored = await t.sponsor.sponsor(sender.kind, sender.address);
    assert.ok(sponsored.bytes.length > 0);
    assert.equal(typeof sponsored.digest, "string");
    const signature = await sender.sign(sponsored);
    const executed = await t.sponsor.execute(sponsored.digest, signature);
    assert.equal(executed.digest, sponsored.digest);
    const effects = executed.effects as { status?: unknown; sender?: unknown };
    assert.equal(effects.status, "success");
    assert.equal(effects.sender, sender.address);
    await assert.rejects(
      () => t.sponsor.execute(sponsored.digest, signature),
      refused("replayed_request", "replayed"),
    );
  });

  Deno.test(`${name}: of concurrent executions of one transaction, one succeeds, the others are replays`, async () => {
    await using t = await start();
    const sender = await t.newSender();
    const sponsored = await t.sponsor.sponsor(sender.kind, sender.address);
    const signature = await sender.sign(sponsored);
    const outcomes = await Promise.allSettled(
      Array.from({ length: 4 }, () => t.sponsor.execute(sponsored.digest, signature)),
    );
    assert.equal(outcomes.filter((o) => o.status === "fulfilled").length, 1);
    for (const outcome of outcomes) {
      if (outcome.status === "rejected") refused("replayed_request", "replayed")(outcome.reason);
    }
    await assert.rejects(
      () => t.sponsor.execute(sponsored.digest, signature),
      refused("replayed_request", "replayed"),
    );
  });

  Deno.test(`${name}: malformed senders, kinds and digests are refused`, async () => {
    await using t = await start();
    const sender = await t.newSender();
    for (const address of ["0x12", "alice", "", "0x" + "A".repeat(64), sender.address + "0"]) {
      await assert.rejects(
        () => t.sponsor.sponsor(sender.kind, address),
        refused("bad_request", "malformed"),
        JSON.stringify(address),
      );
    }
    for (const kind of [new Uint8Array(), new Uint8Array([9, 9, 9])]) {
      await assert.rejects(
        () => t.sponsor.sponsor(kind, sender.address),
        refused("bad_request", "malformed"),
        `kind ${kind.toHex()}`,
      );
    }
    const sponsored = await t.sponsor.sponsor(sender.kind, sender.address);
    const { digest } = sponsored;
    const signature = await sender.sign(sponsored);
    for (const bad of ["", "not a digest", `${digest}/..`]) {
      await assert.rejects(
        () => t.sponsor.execute(bad, signature),
        refused("bad_request", "malformed"),
        JSON.stringify(bad),
      );
    }
  });

  Deno.test(`${name}: bad signatures are refused; the sender's own then executes`, async () => {
    await using t = await start();
    const sender = await t.newSender();
    const stranger = await t.newSender();
    const sponsored = await t.sponsor.sponsor(sender.kind, sender.address);
    const another = await t.sponsor.sponsor(stranger.kind, stranger.address);
    const wrong = [
      await stranger.sign(sponsored), // another key
      await sender.sign(another), // the sender's, of another transaction
      "",
      "%%%",
      "x".repeat(10),
    ];
    for (const signature of wrong) {
      await assert.rejects(
        () => t.sponsor.execute(sponsored.digest, signature),
        refused("unauthorized", "bad_signature"),
        signature.slice(0, 12),
      );
    }
    const executed = await t.sponsor.execute(sponsored.digest, await sender.sign(sponsored));
    assert.equal(executed.digest, sponsored.digest);
  });

  Deno.test(`${name}: unknown and expired transactions are refused`, async () => {
    await using t = await start();
    const sender = await t.newSender();
    const sponsored = await t.sponsor.sponsor(sender.kind, sender.address);
    const signature = await sender.sign(sponsored);
    await assert.rejects(
      () => t.sponsor.execute(t.unknownDigest, signature),
      refused("bad_request", "expired"),
    );
    t.clock.at += t.clock.ttlMs + 1;
    for (let i = 0; i < 2; i++) {
      await assert.rejects(
        () => t.sponsor.execute(sponsored.digest, signature),
        refused("bad_request", "expired"),
        "signed too late, and never executed",
      );
    }
    // Sponsored again, it executes.
    const again = await t.sponsor.sponsor(sender.kind, sender.address);
    await t.sponsor.execute(again.digest, await sender.sign(again));
  });

  Deno.test(`${name}: an aborted sponsor or execute is refused and changes nothing`, async () => {
    await using t = await start();
    const sender = await t.newSender();
    const signal = AbortSignal.abort();
    const isReason = (error: unknown) => error === signal.reason;
    await assert.rejects(
      () => t.sponsor.sponsor(sender.kind, sender.address, { signal }),
      isReason,
    );
    const sponsored = await t.sponsor.sponsor(sender.kind, sender.address);
    const signature = await sender.sign(sponsored);
    await assert.rejects(
      () => t.sponsor.execute(sponsored.digest, signature, { signal }),
      isReason,
    );
    // Nothing was executed: the transaction executes now, once.
    await t.sponsor.execute(sponsored.digest, signature);
    await assert.rejects(
      () => t.sponsor.execute(sponsored.digest, signature),
      refused("replayed_request", "replayed"),
    );
  });
}
