/**
 * An in-memory BM25 index over keyed term hashes, one per owner and namespace. It is built
 * from the vector store's stored terms the first time a namespace is searched and kept up to
 * date as memories are indexed.
 */

import type { TermsRow } from "../backends/types.ts";

export interface LexicalHit {
  id: string;
  score: number;
}

// Tuned on LoCoMo's tuning split (bench/retrieval.ts): short memories favour a low b.
const K1 = 0.7;
const B = 0.3;

class Postings {
  ids: string[] = [];
  lengths: number[] = [];
  live: boolean[] = [];
  byId = new Map<string, number>();
  /** term → parallel lists of document numbers and term frequencies. */
  terms = new Map<string, { docs: number[]; counts: number[] }>();
  totalLength = 0;

  add(id: string, terms: string[]): void {
    if (this.byId.has(id)) this.remove(id);
    const doc = this.ids.length;
    this.ids.push(id);
    this.lengths.push(terms.length);
    this.live.push(true);
    this.byId.set(id, doc);
    this.totalLength += terms.length;
    const counts = new Map<string, number>();
    for (const term of terms) counts.set(term, (counts.get(term) ?? 0) + 1);
    for (const [term, count] of counts) {
      let list = this.terms.get(term);
      if (!list) this.terms.set(term, list = { docs: [], counts: [] });
      list.docs.push(doc);
      list.counts.push(count);
    }
  }

  remove(id: string): void {
    const doc = this.byId.get(id);
    if (doc === undefined) return;
    this.byId.delete(id);
    this.live[doc] = false;
    this.totalLength -= this.lengths[doc];
  }

  search(query: string[], k: number): LexicalHit[] {
    const live = this.byId.size;
    if (live === 0) return [];
    const average = this.totalLength / live || 1;
    const scores = new Map<number, number>();
    for (const term of new Set(query)) {
      const list = this.terms.get(term);
      if (!list) continue;
      // Document frequency counts removed documents too: a small, harmless overestimate.
      const idf = Math.log(1 + (live - list.docs.length + 0.5) / (list.docs.length + 0.5));
      if (idf < 0.05) continue; // in nearly every memory: it cannot tell them apart
      for (let i = 0; i < list.docs.length; i++) {
        const doc = list.docs[i];
        if (!this.live[doc]) continue;
        const tf = list.counts[i];
        const norm = tf * (K1 + 1) / (tf + K1 * (1 - B + B * this.lengths[doc] / average));
        scores.set(doc, (scores.get(doc) ?? 0) + idf * norm);
      }
    }
    return topK(scores, k).map(([doc, score]) => ({ id: this.ids[doc], score }));
  }
}

/** The `k` highest entries, best first, without sorting them all. */
function topK(scores: Map<number, number>, k: number): [number, number][] {
  const best: [number, number][] = [];
  for (const entry of scores) {
    if (best.length < k) {
      best.push(entry);
      if (best.length === k) best.sort((a, b) => b[1] - a[1]);
    } else if (entry[1] > best[k - 1][1]) {
      let i = k - 1;
      while (i > 0 && best[i - 1][1] < entry[1]) {
        best[i] = best[i - 1];
        i--;
      }
      best[i] = entry;
    }
  }
  return best.length < k ? best.sort((a, b) => b[1] - a[1]) : best;
}

export class LexicalIndex {
  #namespaces = new Map<string, Promise<Postings>>();
  #load: (owner: string, namespace: string) => Promise<TermsRow[]>;

  /** `load` reads a namespace's stored terms (once, on first use). */
  constructor(load: (owner: string, namespace: string) => Promise<TermsRow[]>) {
    this.#load = load;
  }

  #postings(owner: string, namespace: string): Promise<Postings> {
    const key = `${owner}\0${namespace}`;
    let postings = this.#namespaces.get(key);
    if (!postings) {
      postings = this.#load(owner, namespace).then((rows) => {
        const built = new Postings();
        for (const row of rows) built.add(row.id, row.terms);
        return built;
      });
      postings.catch(() => this.#namespaces.delete(key));
      this.#namespaces.set(key, postings);
    }
    return postings;
  }

  /** Records a memory's terms (only for namespaces already loaded; others load later). */
  async add(owner: string, namespace: string, id: string, terms: string[]): Promise<void> {
    const postings = this.#namespaces.get(`${owner}\0${namespace}`);
    if (postings) (await postings).add(id, terms);
  }

  async search(owner: string, namespace: string, query: string[], k: number) {
    return (await this.#postings(owner, namespace)).search(query, k);
  }
}
