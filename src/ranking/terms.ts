/**
 * Terms for lexical matching, stored only as keyed hashes: each owner has a key derived
 * (HKDF) from the relayer's secret, and a term is kept as keyed BLAKE2b of its stem, so the
 * index at rest does not reveal the words of a memory to anyone without the key.
 */
import { blake2b } from "@noble/hashes/blake2";
import { LruMap } from "@svc/util/lru_map";
import { words } from "@svc/util/words";
import { definedRelations, relationTerm } from "./relations.ts";
import { writtenTimes } from "./times.ts";
import { STOP_WORDS } from "./stop_words.ts";
import { statesLimit } from "./limits.ts";
import { rankedText } from "../text_limits.ts";

/** Irregular past forms, so "went" meets "go". */
const IRREGULAR: Record<string, string> = Object.fromEntries(
  ("went:go gone:go saw:see seen:see ran:run took:take taken:take made:make got:get gotten:get " +
    "bought:buy thought:think told:tell said:say came:come gave:give given:give found:find " +
    "felt:feel met:meet left:leave kept:keep began:begin begun:begin wrote:write written:write " +
    "drove:drive driven:drive ate:eat eaten:eat won:win lost:lose taught:teach brought:bring " +
    "sent:send spent:spend built:build paid:pay sold:sell heard:hear held:hold knew:know " +
    "known:know grew:grow grown:grow flew:fly flown:fly swam:swim sang:sing sung:sing drew:draw " +
    "drawn:draw chose:choose chosen:choose fell:fall fallen:fall broke:break broken:break " +
    "spoke:speak spoken:speak woke:wake wore:wear worn:wear became:become understood:understand " +
    "stood:stand sat:sit slept:sleep caught:catch fought:fight led:lead lent:lend rode:ride " +
    "ridden:ride shot:shoot shown:show hid:hide hidden:hide threw:throw thrown:throw")
    .split(" ").map((pair) => pair.split(":")),
);

/** A light English stemmer: irregular pasts, plurals, -ing, -ed, -ly. */
export function stem(word: string): string {
  if (IRREGULAR[word]) return IRREGULAR[word];
  if (word.length <= 3 || /\d/.test(word) || UNSPACED.test(word)) return word;
  let w = word;
  if (w.endsWith("ies") && w.length > 4) w = w.slice(0, -3) + "y";
  else if (/(ss|sh|ch|x|z)es$/.test(w)) w = w.slice(0, -2);
  else if (w.endsWith("s") && !w.endsWith("ss") && !w.endsWith("us")) w = w.slice(0, -1);
  if (w.endsWith("ing") && w.length > 5) w = w.slice(0, -3);
  else if (w.endsWith("ed") && w.length > 4) w = w.slice(0, -2);
  else if (w.endsWith("ly") && w.length > 4) w = w.slice(0, -2);
  if (/([^aeiouls])\1$/.test(w)) w = w.slice(0, -1); // running → runn → run
  return w;
}

/**
 * Function words of Japanese, Chinese and Thai as `Intl.Segmenter` cuts them (particles,
 * copulas, pronouns of the first person), left out like the English stop words.
 */
const UNSPACED_STOP_WORDS = new Set(
  ("は が を に の で と も へ や か ね よ な だ た て い です ます でした ました する した して いる " +
    "ある こと これ それ 私 的 了 是 在 我 和 也 吗 呢 吧 这 那 都 就 有 ที่ และ ของ ใน เป็น ได้ จะ " +
    "มี ไม่ ฉัน ผม ค่ะ ครับ กับ ก็ ว่า ให้").split(" "),
);

/** A word of a script written without spaces (see `words`' `segment`): never stemmed. */
const UNSPACED =
  /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Thai}\p{Script=Lao}\p{Script=Khmer}\p{Script=Myanmar}]/u;

/** The content words of a text before stemming, in order, repeats kept: `terms` stems them. */
function contentWords(text: string): string[] {
  return words(text, { segment: true }).map((w) => w.replace(/'(s|m|re|ve|d|ll|t)$/, ""))
    .filter((w) => w && !STOP_WORDS.has(w) && !UNSPACED_STOP_WORDS.has(w));
}

/**
 * How many content words of a text count for lexical matching: the first 1,024 (about 12 KiB of
 * English). A longer text is still stored and embedded whole; its later words are not indexed,
 * so what a memory costs the lexical index is bounded, whatever its text.
 */
export const MAX_TERMS = 1024;

/** The stemmed content words of a text, in order, repeats kept; the first `MAX_TERMS`. */
export function terms(text: string): string[] {
  return contentWords(text).slice(0, MAX_TERMS).map(stem);
}

/** When a memory was remembered, and whether it is a turn of a conversation (has a thread). */
export interface Written {
  /** Unix milliseconds. */
  at: number;
  /** Whether it is a turn of a conversation. */
  thread: boolean;
}

/**
 * What a memory is indexed by: the relations it defines someone by (`definedRelations`), a mark
 * when it states a limit of the user's (`statesLimit`), for a fact the times its relative times
 * name (`writtenTimes`), then its `terms`; the first `MAX_TERMS`. The limit is read from the
 * text's `rankedText`. A turn's relative times are not read: a conversation is often remembered
 * long after it was said.
 */
function memoryTerms(text: string, written?: Written): string[] {
  const dated = written && !written.thread;
  const times = dated ? terms(writtenTimes(text, written.at).join(" ")) : [];
  const marks = statesLimit(rankedText(text)) ? [LIMIT_TERM] : [];
  return [...definedRelations(text), ...marks, ...times, ...terms(text)].slice(0, MAX_TERMS);
}

/**
 * The term of a memory saying what keeps the user from doing something: apart from every word's
 * (no word holds a NUL), so that a question whether they may do something finds them all.
 */
const LIMIT_TERM = "limit\0user";

const encoder = new TextEncoder();

/** The keyed hash of one term. */
function termHash(key: Uint8Array, term: string): string {
  return blake2b(encoder.encode(term), { key, dkLen: 8 }).toHex();
}

/** How many hashes of terms are kept, by owner and term. */
const KEPT_TERMS = 16_384;

/** Options of {@link TermHasher.fromSecret}. */
export interface TermHasherOptions {
  /**
   * Whether the hashes of memories' terms are kept too, not only those of queries: for a
   * relayer that holds its memories' keys (the local cipher), as its kept texts are. Default
   * `true`.
   */
  keepMemoryTerms?: boolean;
}

/** Keyed hashes of the terms of texts, per owner: what the lexical index files terms under. */
export class TermHasher {
  #master: CryptoKey;
  #keepMemoryTerms: boolean;
  #keys = new Map<string, Promise<Uint8Array>>();
  #kept = new LruMap<string, string>(KEPT_TERMS);

  private constructor(master: CryptoKey, keepMemoryTerms: boolean) {
    this.#master = master;
    this.#keepMemoryTerms = keepMemoryTerms;
  }

  /** The hasher of the relayer's 32 secret bytes. */
  static async fromSecret(
    secret: Uint8Array<ArrayBuffer>,
    options: TermHasherOptions = {},
  ): Promise<TermHasher> {
    return new TermHasher(
      await crypto.subtle.importKey("raw", secret, "HKDF", false, ["deriveBits"]),
      options.keepMemoryTerms ?? true,
    );
  }

  #key(owner: string): Promise<Uint8Array> {
    let key = this.#keys.get(owner);
    if (!key) {
      key = crypto.subtle.deriveBits(
        {
          name: "HKDF",
          hash: "SHA-256",
          salt: encoder.encode("svc-lexical-terms-v1"),
          info: encoder.encode(owner),
        },
        this.#master,
        256,
      ).then((bits) => new Uint8Array(bits));
      this.#keys.set(owner, key);
    }
    return key;
  }

  /**
   * The keyed hashes of a memory's terms (without `written`, its relative times are not read),
   * for one owner; with `keepMemoryTerms`, the hashes of recent terms are kept (single words,
   * never a text; in memory only).
   */
  async hash(owner: string, text: string, written?: Written): Promise<string[]> {
    const key = await this.#key(owner);
    const indexed = memoryTerms(text, written);
    if (!this.#keepMemoryTerms) return indexed.map((term) => termHash(key, term));
    return this.#keptHashes(owner, key, indexed);
  }

  /**
   * As {@link hash}, for a query: the hashes of the terms recent queries asked are always kept,
   * since the words people ask with repeat (a query is the caller's, not a decrypted memory).
   */
  async hashQuery(owner: string, query: string): Promise<string[]> {
    return this.#keptHashes(owner, await this.#key(owner), terms(query));
  }

  /** The keyed hash of the mark of memories stating a limit of the user's (`statesLimit`). */
  async limits(owner: string): Promise<string[]> {
    return this.#keptHashes(owner, await this.#key(owner), [LIMIT_TERM]);
  }

  /** The keyed hashes of the terms that memories defining someone by `relations` hold. */
  async relations(owner: string, relations: string[]): Promise<string[]> {
    return this.#keptHashes(owner, await this.#key(owner), relations.map(relationTerm));
  }

  #keptHashes(owner: string, key: Uint8Array, list: string[]): string[] {
    return list.map((term) => {
      const id = `${owner}\0${term}`;
      let hash = this.#kept.get(id);
      if (hash === undefined) this.#kept.set(id, hash = termHash(key, term));
      return hash;
    });
  }

  /** The keyed hashes of tags, for one owner (apart from any term's hash). */
  async tags(owner: string, tags: readonly string[]): Promise<string[]> {
    const key = await this.#key(owner);
    return tags.map((tag) => blake2b(encoder.encode(`tag\0${tag}`), { key, dkLen: 16 }).toHex());
  }

  /** The keyed hash of a thread id, for one owner (apart from any term's or tag's hash). */
  async thread(owner: string, thread: string): Promise<string> {
    const key = await this.#key(owner);
    return blake2b(encoder.encode(`thread\0${thread}`), { key, dkLen: 16 }).toHex();
  }

  /**
   * A keyed hash of a text after normalising case and white space, and of its thread when it
   * has one: two memories with the same digest are the same memory (a duplicate). A memory
   * without a thread keeps the digest it always had.
   */
  async digest(owner: string, text: string, thread?: string): Promise<string> {
    const key = await this.#key(owner);
    const normal = text.normalize("NFC").toLowerCase().trim().replace(/\s+/g, " ");
    const input = thread === undefined ? `text\0${normal}` : `text\0${normal}\0thread\0${thread}`;
    return blake2b(encoder.encode(input), { key, dkLen: 16 }).toHex();
  }
}
