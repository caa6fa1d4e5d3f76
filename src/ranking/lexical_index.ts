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
  removed = new Set<number>();
  byId = new Map<string, number>();
  /** term → document numbers, one entry per occurrence. */
  terms = new Map<string, number[]>();
  totalLength = 0;

  add(id: string, terms: string[]): void {
    if (this.byId.has(id)) this.remove(id);
    const doc = this.ids.length;
    this.ids.push(id);
    this.lengths.push(terms.length);
    this.byId.set(id, doc);
    this.totalLength += terms.length;
    for (const term of terms) {
      let list = this.terms.get(term);
      if (!list) this.terms.set(term, list = []);
      list.push(doc);
    }
  }

  remove(id: string): void {
    const doc = this.byId.get(id);
    if (doc === undefined) return;
    this.byId.delete(id);
    this.removed.add(doc);
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
      const counts = new Map<number, number>();
      for (const doc of list) {
        if (!this.removed.has(doc)) counts.set(doc, (counts.get(doc) ?? 0) + 1);
      }
      const idf = Math.log(1 + (live - counts.size + 0.5) / (counts.size + 0.5));
      for (const [doc, tf] of counts) {
        const norm = tf * (K1 + 1) / (tf + K1 * (1 - B + B * this.lengths[doc] / average));
        scores.set(doc, (scores.get(doc) ?? 0) + idf * norm);
      }
    }
    return [...scores].sort((a, b) => b[1] - a[1]).slice(0, k)
      .map(([doc, score]) => ({ id: this.ids[doc], score }));
  }
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
