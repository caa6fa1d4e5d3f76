/**
 * Text claims in PostgreSQL, shared by every relayer: of two jobs storing one text at once on two
 * relayers, one stores it and the other finds it a duplicate. A batch's claim is one transaction
 * of conditional upserts (a place is taken when free, held by the same job, or held by another
 * for `TEXT_CLAIM_MS` or more), rolled back unless it took every place; places go in one order,
 * so two batches claiming at once do not deadlock. The places are kept as keyed hashes
 * (HMAC-SHA-256 under a key HKDF derives from the relayers' shared secret): the table shows
 * neither owners nor texts. A job waiting for another polls the table.
 *
 * @example
 * ```ts ignore
 * const claims = await PgTextClaims.open(await Database.open({ url }), secret);
 * if (!(await claims.claim([{ place, job }], Date.now()))) await claims.released([{ place, job }]);
 * ```
 */
import { stateTags, TEXT_CLAIM_MS, type TextClaim, type TextClaims } from "@svc/relayer/kit";
import { type Database, pgCall, pgError } from "./database.ts";

/** The pauses between two looks at a place another job holds: 10 ms, doubling to 250 ms. */
const FIRST_PAUSE_MS = 10;
const LAST_PAUSE_MS = 250;

/** Thrown inside a claim's transaction to roll it back. */
class Held extends Error {}

/** Text claims decided by the shared database; see the module documentation. */
export class PgTextClaims implements TextClaims {
  #database: Database;
  #key: CryptoKey;

  private constructor(database: Database, key: CryptoKey) {
    this.#database = database;
    this.#key = key;
  }

  /** The claims on `database` (whose schema is migrated), keyed by the 32-byte `secret`. */
  static async open(database: Database, secret: Uint8Array<ArrayBuffer>): Promise<PgTextClaims> {
    return new PgTextClaims(database, await stateTags.tagKey(secret, "text claims"));
  }

  /** The claims' places as keyed hashes, in one order, with their jobs. */
  async #tagged(claims: TextClaim[]) {
    const tagged = await Promise.all(claims.map(async ({ place, job }) => {
      const hex = await stateTags.tagOf(this.#key, place);
      return { tag: Uint8Array.fromHex(hex), hex, job };
    }));
    tagged.sort((a, b) => a.hex < b.hex ? -1 : 1);
    return { tags: tagged.map(({ tag }) => tag), jobs: tagged.map(({ job }) => job) };
  }

  async claim(claims: TextClaim[], now: number): Promise<boolean> {
    if (claims.length === 0) return true;
    const { tags, jobs } = await this.#tagged(claims);
    const sql = this.#database.sql;
    try {
      await sql.begin(async (tx) => {
        const rows = await tx`
          insert into svc_text_claims as held (place, claimed_by, claimed_at)
          select place, job, ${now}::int8
          from unnest(${sql.array(tags, 17)}::bytea[], ${sql.array(jobs, 25)}::text[])
            with ordinality as wanted (place, job, n)
          order by n
          on conflict (place) do update
            set claimed_by = excluded.claimed_by, claimed_at = excluded.claimed_at
            where held.claimed_by = excluded.claimed_by
              or held.claimed_at <= excluded.claimed_at - ${TEXT_CLAIM_MS}::int8
          returning 1`;
        if (rows.length < tags.length) throw new Held();
      });
      return true;
    } catch (error) {
      if (error instanceof Held) return false;
      throw pgError("claim the texts a batch stores", error);
    }
  }

  async released(claims: TextClaim[]): Promise<void> {
    if (claims.length === 0) return;
    const { tags, jobs } = await this.#tagged(claims);
    const sql = this.#database.sql;
    for (let pause = FIRST_PAUSE_MS;; pause = Math.min(2 * pause, LAST_PAUSE_MS)) {
      const rows = await pgCall("read the texts other jobs store", () =>
        sql`
          select 1 from svc_text_claims as held
          join unnest(${sql.array(tags, 17)}::bytea[], ${sql.array(jobs, 25)}::text[])
            as wanted (place, job) on held.place = wanted.place
          where held.claimed_by <> wanted.job
            and held.claimed_at > ${Date.now() - TEXT_CLAIM_MS}::int8
          limit 1`);
      if (rows.length === 0) return;
      await new Promise((resolve) => setTimeout(resolve, pause));
    }
  }

  async release(jobs: string[]): Promise<void> {
    if (jobs.length === 0) return;
    const sql = this.#database.sql;
    await pgCall(
      "release the texts a batch stored",
      () => sql`delete from svc_text_claims where claimed_by = any(${sql.array(jobs, 25)}::text[])`,
    );
  }
}
