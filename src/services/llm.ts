/**
 * Analyze and ask: the use-cases that need the language model. Analyze turns a text into
 * remember jobs, one per extracted fact, skipping facts the namespace already holds; ask
 * answers a question from recalled memories only.
 */
import type { Embedder, Llm, VectorStore } from "../backends/types.ts";
import type { Provenance } from "../pipeline/attributes.ts";
import { stem } from "../ranking/terms.ts";
import { words } from "@svc/util/words";
import { MAX_FACTS } from "../text_limits.ts";
import type { MemoryCallOptions, MemoryService, RecallResult } from "./memories.ts";
import type { RecallOptions } from "./recall.ts";

export interface LlmServiceDependencies {
  llm: Llm;
  embedder: Embedder;
  vectors: VectorStore;
  memories: MemoryService;
}

/** Words a fact about the user gains or loses in another phrasing without saying more. */
const FILLER = new Set(
  ["a", "an", "the", "i", "i'm", "me", "my", "user", "user's", "is", "am", "they", "them", "their"],
);

/** Verbs of the third person that `stem` does not bring to the first's ("has", "have"). */
const FIRST_PERSON: Record<string, string> = { has: "have", does: "do", goes: "go" };

/**
 * A fact's words, in order, without the filler of its phrasing, stemmed: "The user prefers tea"
 * and "I prefer tea" have the same, as "The user's sister has a dog" and "My sister has a dog";
 * "I prefer coffee over tea", "I do not prefer tea" do not.
 */
function factWords(text: string): string {
  return words(text).filter((word) => !FILLER.has(word))
    .map((word) => FIRST_PERSON[word] ?? stem(word)).join(" ");
}

/** A fact analyze extracted, and what became of it. */
export interface AnalyzedFact {
  /** The fact, a self-contained sentence about the user. */
  text: string;
  /** The remember job; `null` for a duplicate. */
  job_id: string | null;
  /** `pending` when it is being remembered, `duplicate` when it was already. */
  status: "pending" | "duplicate";
  /** The memory a duplicate repeats (absent when it repeats another fact of this text). */
  duplicate_of?: string;
}

/** What analyze answers: the facts extracted from a text and the jobs remembering them. */
export type Analysis = {
  /** The remember jobs of the new facts, in the order of `facts`. */
  job_ids: string[];
  /** Every fact extracted, in the order extracted, duplicates included. */
  facts: AnalyzedFact[];
  /** How many `facts` there are. */
  fact_count: number;
  /** Always `"pending"`: the jobs are queued, not yet done. */
  status: "pending";
  /** The owner's address. */
  owner: string;
};

/** What ask answers: the answer, and the memories it was drawn from. */
export interface Answer {
  /** The language model's answer, or a fixed sentence when no memory was found. */
  answer: string;
  /** How many `memories` there are. */
  memories_used: number;
  /** The memories recall found for the question, best first. */
  memories: RecallResult[];
}

export const NO_MEMORIES_ANSWER =
  "I found nothing in your memories about that, so I cannot answer it from them.";

export function createLlmService(deps: LlmServiceDependencies) {
  const { llm, embedder, vectors, memories } = deps;
  return {
    /**
     * Extracts facts and queues the new ones, recorded as remembered by `rememberedBy`;
     * aborting stops it before anything is queued.
     */
    async analyze(
      owner: string,
      text: string,
      namespace: string,
      options: MemoryCallOptions & { rememberedBy?: Provenance } = {},
    ): Promise<Analysis> {
      const { signal, rememberedBy } = options;
      const extracted = (await llm.extractFacts(text, { signal })).slice(0, MAX_FACTS);
      const vectorsOf = extracted.length ? await embedder.embed(extracted, { signal }) : [];
      const facts: AnalyzedFact[] = [];
      const fresh: { index: number; text: string }[] = [];
      const seen = new Set<string>();
      const visible = await memories.visible(owner, namespace);
      for (const [i, fact] of extracted.entries()) {
        const said = factWords(fact);
        // The nearest memories by meaning repeat the fact only with its words: a vector hardly
        // tells "not", or which way someone moved.
        const near = (await vectors.search(owner, namespace, vectorsOf[i], 3, { signal }))
          .filter((hit) => visible(hit.id));
        const texts = await memories.texts(owner, namespace, near, options);
        const nearest = near.find((_, j) => texts[j] !== null && factWords(texts[j]!) === said);
        if (seen.has(said) || nearest) {
          facts.push({
            text: fact,
            job_id: null,
            status: "duplicate",
            ...(!seen.has(said) && nearest ? { duplicate_of: nearest.id } : {}),
          });
        } else {
          fresh.push({ index: facts.length, text: fact });
          facts.push({ text: fact, job_id: null, status: "pending" });
        }
        seen.add(said);
      }
      const jobs = fresh.length
        ? await memories.remember(
          owner,
          fresh.map(({ text }) => ({ text, namespace, rememberedBy })),
        )
        : [];
      jobs.forEach((job, i) => facts[fresh[i].index].job_id = job.job_id);
      return {
        job_ids: jobs.map((job) => job.job_id),
        facts,
        fact_count: facts.length,
        status: "pending",
        owner,
      };
    },

    /**
     * Answers a question from the memories recall finds for it (at most `limit`); `keyAddress`:
     * the asking key's, as recall takes it.
     */
    async ask(
      owner: string,
      question: string,
      limit: number,
      namespace: string,
      options: MemoryCallOptions & Pick<RecallOptions, "keyAddress"> = {},
    ): Promise<Answer> {
      await memories.refuseBlind(owner, [namespace]);
      const { results } = await memories.recall(owner, question, limit, namespace, options);
      if (results.length === 0) {
        return { answer: NO_MEMORIES_ANSWER, memories_used: 0, memories: [] };
      }
      const answer = await llm.answer(question, results.map((r) => r.text), {
        signal: options.signal,
      });
      return { answer, memories_used: results.length, memories: results };
    },
  };
}

export type LlmService = ReturnType<typeof createLlmService>;
