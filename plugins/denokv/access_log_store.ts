/** The access log's sealed records in Deno KV. */
import type { AccessLogStore, AccessRecordRange, SealedAccessRecord } from "@svc/relayer/kit";

/** Records a Deno KV commit takes at most, and bytes (its limit is 800 KiB). */
const PER_COMMIT = 200;
const BYTES_PER_COMMIT = 400_000;

/**
 * The access log in Deno KV. Keys: `["access_log", log, id]` → the sealed bytes;
 * `["access_log_logs", log]` → `true`, the logs that prune walks.
 */
export class KvAccessLogStore implements AccessLogStore {
  #kv: Deno.Kv;
  /** The logs known to be listed in `access_log_logs` already. */
  #listed = new Set<string>();

  /** The store in `kv`. */
  constructor(kv: Deno.Kv) {
    this.#kv = kv;
  }

  /** Stores records (new ids), in as few commits as Deno KV's limits allow. */
  async append(records: SealedAccessRecord[]): Promise<void> {
    let op = this.#kv.atomic();
    let count = 0, bytes = 0;
    const commit = async () => {
      if (count === 0) return;
      const result = await op.commit();
      if (!result.ok) throw new Error("Cannot write the access log: a commit failed");
      op = this.#kv.atomic();
      count = bytes = 0;
    };
    const fresh = new Set(records.map((r) => r.log).filter((log) => !this.#listed.has(log)));
    for (const log of fresh) {
      op.set(["access_log_logs", log], true);
      count++;
    }
    for (const { log, id, sealed } of records) {
      if (count >= PER_COMMIT || bytes + sealed.byteLength > BYTES_PER_COMMIT) await commit();
      op.set(["access_log", log, id], sealed);
      count++;
      bytes += sealed.byteLength;
    }
    await commit();
    for (const log of fresh) this.#listed.add(log);
  }

  /** The records of `log` in `range`, newest first, at most `limit`. */
  async scan(
    log: string,
    range: AccessRecordRange,
    limit: number,
  ): Promise<SealedAccessRecord[]> {
    const prefix = ["access_log", log];
    const start = range.from === undefined ? undefined : [...prefix, range.from];
    const end = range.to === undefined ? undefined : [...prefix, range.to];
    const selector = start && end
      ? { start, end }
      : start
      ? { prefix, start }
      : end
      ? { prefix, end }
      : { prefix };
    const records: SealedAccessRecord[] = [];
    const entries = this.#kv.list<Uint8Array<ArrayBuffer>>(selector, {
      reverse: true,
      limit,
      batchSize: Math.min(limit, 500),
    });
    for await (const { key, value } of entries) {
      records.push({ log, id: key[2] as string, sealed: value });
    }
    return records;
  }

  /** Every record of every log, by log then id (for copying the log elsewhere). */
  async *entries(): AsyncIterable<SealedAccessRecord> {
    const entries = this.#kv.list<Uint8Array<ArrayBuffer>>({ prefix: ["access_log"] });
    for await (const { key, value } of entries) {
      yield { log: key[1] as string, id: key[2] as string, sealed: value };
    }
  }

  async prune(before: string): Promise<number> {
    let pruned = 0;
    for await (const { key } of this.#kv.list({ prefix: ["access_log_logs"] })) {
      const log = key[1] as string;
      const old = this.#kv.list({ start: ["access_log", log], end: ["access_log", log, before] });
      let op = this.#kv.atomic();
      let count = 0;
      for await (const entry of old) {
        op.delete(entry.key);
        if (++count === PER_COMMIT) {
          await op.commit();
          pruned += count;
          op = this.#kv.atomic();
          count = 0;
        }
      }
      if (count > 0) await op.commit();
      pruned += count;
    }
    return pruned;
  }
}
