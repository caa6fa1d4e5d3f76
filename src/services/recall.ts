/**
 * Recall as its stages, each a function of what it is given: the query embedded
 * (`QueryVectors`) while its terms are hashed and the namespace's index read; the memories it may
 * show (`recallScope`); the best BM25 matches (`lexicalMatches`); the candidates
 * (`searchCandidates`); with a re-ranker, their texts read and re-scored (`candidateTexts`,
 * `rerankScores`); the candidates ranked (`rankRecall`), or none when recall abstains
 * (`abstaining`); the best read and decrypted while their tags are opened (`readTexts`,
 * `openAttributes`, `recallResults`). `recall` alone times the stages, for the relayer's metrics
 * (`RecallClock`). The ranking itself is `src/ranking/`.
 */
import type {
  Embedder,
  EmbedderRanking,
  Reranker,
  VectorHit,
  VectorStore,
} from "../backends/types.ts";
import {
  type AttributeSeal,
  type OpenedAttributes,
  rememberedByOf,
} from "../pipeline/attributes.ts";
import { holdsAnswer, questionType } from "../ranking/answer_types.ts";
import { askedLimit } from "../ranking/limits.ts";
import { gatherCandidates, poolSize } from "../ranking/candidates.ts";
import {
  FUSION_WEIGHTS,
  type FusionWeights,
  type MemoryKind,
  relativeLexical,
} from "../ranking/fusion.ts";
import type { CatalogFilter, LexicalMatches, NamespaceIndex } from "../ranking/lexical_index.ts";
import type { LexicalIndex } from "../ranking/lexicon.ts";
import { recallNeighbours } from "../ranking/neighbours.ts";
import {
  abstainsAt,
  DEFAULT_MIN_SCORE,
  mergeRanked,
  nearestShape,
  rankCandidates,
  type RankedHit,
} from "../ranking/rank.ts";
import {
  type AskedName,
  askedNames,
  askedOf,
  type AskedRelation,
  askedRelations,
  bareName,
  type Definition,
  definitions,
} from "../ranking/relations.ts";
import {
  askedThings,
  saysName,
  thingName,
  THINGS_MAX,
  thingSpan,
} from "../ranking/asked_things.ts";
import { askedTimes } from "../ranking/times.ts";
import type { TermHasher } from "../ranking/terms.ts";
import type { MemoryCallOptions } from "./memories.ts";
import type { RecallResult, RecallResults } from "./memory_answers.ts";
import { catalogFilter, type MemoryFilter } from "./memory_view.ts";
import { QueryVectors } from "./query_vectors.ts";
import type { MemoryReader, ReadOptions } from "./reader.ts";
import { RecallClock, type StageObserver } from "./recall_clock.ts";
import { explanationOf } from "./recall_explanation.ts";
import { type LackedAnswer, lackedAnswer, type Lacking } from "./lacked_answer.ts";
import { rankedText, rankedWhole, readWithin, TEXT_READS, utf8Length } from "../text_limits.ts";

export interface RecallDependencies {
  /** Embeds the query. */
  embedder: Embedder;
  /** Reads the memories' texts. */
  reader: MemoryReader;
  vectors: VectorStore;
  /** The re-ranker of the moment, read at each recall; without one, recall ranks without it. */
  reranker?: () => Reranker | undefined;
  /** Keyed term hashes of the query, and the BM25 index over the memories' terms. */
  hasher: TermHasher;
  lexicon: LexicalIndex;
  /** Opens the tags sealed in a memory's row. */
  attributeSeal: AttributeSeal;
  /** Unix milliseconds. */
  now: () => number;
  /** Hears how long each stage of a recall took, in seconds. */
  observeStage?: StageObserver;
}

/** What a recall may carry besides its arguments. */
export type RecallOptions = MemoryCallOptions & {
  filter?: MemoryFilter;
  /** Leave out memories scoring below this (default `DEFAULT_MIN_SCORE`). */
  minScore?: number;
  /** Give each result its `explain`. */
  explain?: boolean;
  /**
   * The address of the key that asks (default: the owner's own key, whose address is `owner`):
   * the vectors of its queries are kept apart from every other key's (`QueryVectors`).
   */
  keyAddress?: string;
};

/** Recall over the memories of `deps`; see the module documentation. */
export function createRecall(deps: RecallDependencies) {
  const { embedder, reader, vectors, hasher, lexicon, attributeSeal, now } = deps;
  const queryVectors = new QueryVectors(embedder, now);

  return {
    /**
     * Hybrid recall: the nearest memories by vector and the best by BM25 over keyed term
     * hashes are pooled with the memories remembered right after the best of them in their
     * thread, scored (re-scored by the re-ranker, when there is one), given a share of their
     * thread neighbours' scores, and the best `limit` that score at least `minScore`
     * decrypted. The ranking itself is `src/ranking/`.
     */
    async recall(
      owner: string,
      query: string,
      limit: number,
      namespace: string,
      options: RecallOptions = {},
    ): Promise<RecallResults> {
      const { signal } = options;
      const asker = { owner, key: options.keyAddress ?? owner };
      const clock = new RecallClock(deps.observeStage);
      const size = poolSize(limit);
      // The query is embedded while all that needs no vector is done.
      const vector = clock.timed("embed", () => queryVectors.vectorOf(asker, query, signal));
      vector.catch(() => {}); // awaited by the ranking; a recall that ends first leaves it
      const [queryTerms, index, filter] = await Promise.all([
        clock.counted("lexical", () => hasher.hashQuery(owner, query)),
        lexicon.namespace(owner, namespace),
        catalogFilter(hasher, owner, options.filter ?? {}),
      ]);
      const at = now();
      const scope = recallScope(index, filter, at);
      if (scope.only?.length === 0) return { results: [], total: 0 };
      const source: TextSource = { reader, owner, index, options };
      const asking: Asking = {
        owner,
        namespace,
        index,
        scope,
        size,
        limit,
        source,
        options,
        vectors,
        hasher,
        ranking: { weights: FUSION_WEIGHTS, ...embedder.ranking },
        reranker: deps.reranker?.(),
        at,
      };
      const embed = (question: string) => queryVectors.vectorOf(asker, question, signal);
      const [first, { others, lacked }] = await Promise.all([
        rankQuestion(asking, { query, vector, terms: queryTerms }, clock),
        askedBesides(asking, query, embed, clock),
      ]);
      clock.report("lexical");
      const { shape, abstainBelow } = first;
      const explained = options.explain && { abstain_below: abstainBelow, ...shape };
      const none = (why: LackedAnswer) => ({
        results: [],
        total: 0,
        ...(explained && { ...explained, no_answer: why }),
      });
      if (lacked && !lacked.thing && options.minScore === undefined) return none(lacked.why);
      const rankings = [first, ...others];
      const answered = mergeRanked(rankings.map((r) => r.answered), limit);
      const texts = new Map(rankings.flatMap((r) => [...r.texts]));
      // Tags and provenance are opened while the texts are read.
      const opening = openAttributes(attributeSeal, { owner, namespace, index }, answered);
      const [read, attributes] = await Promise.all([
        clock.counted("read", () => readAnswers(source, answered.map(({ hit }) => hit), texts)),
        opening,
      ]);
      clock.report("read");
      // The best answers whose texts fit one answer (`MAX_ANSWER_TEXT_BYTES`).
      const shown = answered.slice(0, read.length);
      const results = recallResults(index, shown, read, attributes, options.explain);
      const why = lacked && !heldAbove(results, lacked.thing) ? lacked.why : undefined;
      if (why && options.minScore === undefined) return none(why);
      return {
        results,
        total: results.length,
        ...(explained && { ...explained, ...(why && { no_answer: why }) }),
      };
    },
  };
}

/** What each question of one recall is asked in. */
interface Asking {
  owner: string;
  namespace: string;
  index: NamespaceIndex;
  scope: RecallScope;
  /** How many memories it pools (`poolSize`). */
  size: number;
  limit: number;
  source: TextSource;
  options: RecallOptions;
  vectors: VectorStore;
  hasher: TermHasher;
  /** The embedder's weights and margin. */
  ranking: EmbedderRanking;
  reranker?: Reranker;
  /** Unix milliseconds: when the recall is asked. */
  at: number;
}

/** One question of a recall, embedded (or being embedded) and hashed. */
interface Question {
  query: string;
  vector: Float32Array | Promise<Float32Array>;
  terms: string[];
}

/** One question's ranking, the margin it was held to, and the texts read for it. */
interface QuestionRanking {
  answered: RankedHit[];
  abstainBelow: number;
  shape: NearestShape;
  texts: Map<string, string>;
}

/**
 * One question's candidates ranked (re-scored by the re-ranker, when there is one), or none
 * when recall abstains. Its lexical matches are found while its vector is still being embedded.
 */
async function rankQuestion(
  { owner, namespace, index, scope, size, limit, source, options, vectors, ranking, reranker }:
    Asking,
  { query, vector, terms }: Question,
  clock: RecallClock,
): Promise<QuestionRanking> {
  const { signal, minScore } = options;
  const { matches, lexical } = clock.countedNow(
    "lexical",
    () => lexicalMatches(index, terms, size),
  );
  const neighbours = recallNeighbours(index);
  // Each memory is weighed as its kind under the embedder's weights, in the pool and after.
  const weighing = { kind: (id: string) => kindOf(index, id), weights: ranking.weights };
  const embedded = await vector;
  const { candidates, shape } = await clock.timed("search", () =>
    searchCandidates(
      { vectors, owner, namespace, vector: embedded, signal },
      { size, scope, matches, lexical, neighbours, ...weighing },
    ));
  // With a re-ranker, every candidate is decrypted and, where its kind weighs the re-ranker,
  // re-scored; otherwise only the best are decrypted.
  let texts = new Map<string, string>();
  let reranked: Map<string, number | undefined> | undefined;
  if (reranker) {
    const read = await clock.counted("read", () => candidateTexts(source, candidates));
    const weighed = (id: string) => weighing.weights[weighing.kind(id)].rerank > 0;
    reranked = await clock.timed(
      "rerank",
      () => rerankScores(reranker, query, read, weighed, signal),
    );
    texts = read.texts;
  }
  const ranked = rankRecall(
    { candidates, limit, query, minScore },
    { lexical, neighbours, reranked, texts, ...weighing },
  );
  const abstainBelow = minScore === undefined ? ranking.abstainBelow ?? 0 : 0;
  return { ...abstaining(ranked, shape, index, abstainBelow), shape, texts };
}

/**
 * What a recall asks besides its question, while that is embedded: the other questions
 * (`otherQuestions`: "my brother-in-law" asked about as "Oskar", "Niamh" as "my sister"),
 * ranked, and why the question has no answer (`lackedAnswer`), unless the caller's `min_score`
 * decides what is an answer (`explain` still says why).
 */
async function askedBesides(
  asking: Asking,
  query: string,
  embed: (question: string) => Promise<Float32Array>,
  clock: RecallClock,
) {
  const asked = await clock.counted("read", () => otherQuestions(asking, query));
  const { minScore, explain } = asking.options;
  const [others, lacked] = await Promise.all([
    Promise.all(asked.map((other) => rankOther(asking, other, embed, clock))),
    minScore === undefined || explain
      ? clock.counted("read", () => lackedAnswerOf(asking, query, asked))
      : undefined,
  ]);
  return { others, lacked };
}

/** Why `query` has no answer (`lackedAnswer`), asked of the memories the recall may show. */
function lackedAnswerOf(
  { owner, hasher, index, scope, source }: Asking,
  query: string,
  others: OtherQuestion[],
) {
  const lookup = {
    owner,
    hasher,
    index,
    shown: scope.shown,
    read: (ids: string[]) => readTexts(source, hitsOf(index, ids), new Map()),
  };
  // Whom the other questions ask about: the names of the relation asked about, or what the name
  // asked about is to the user ("my best friend").
  const names = others.flatMap(({ person, about }) => person ? [about.replace(/^my /, "")] : []);
  return lackedAnswer(lookup, query, names);
}

/** How many of a recall's best answers may hold what a thing's memories lack (`Lacking`). */
const HELD_TOP = 3;

/**
 * Whether one of the best `HELD_TOP` `results`, ranked above every memory of the `thing`, holds
 * the kind of answer its memories lack.
 */
function heldAbove(results: { id: string; text: string }[], thing: Lacking["thing"]): boolean {
  if (!thing) return false;
  const best = results.slice(0, HELD_TOP);
  const own = best.findIndex(({ id }) => thing.ids.has(id));
  return best.slice(0, own < 0 ? undefined : own).some(({ text }) => thing.holds(rankedText(text)));
}

/** Memories read for who someone is, and other questions a recall asks, at most. */
const DEFINERS = 4;
const OTHERS = 2;
/** How much more a relation's term weighs than a word in finding who it names. */
const RELATION_WEIGHT = 100;

/** A relation's words as they are compared: "My  pen pal" → "pen pal". */
function saidAs(relation: string): string {
  return relation.toLowerCase().replace(/[’‘]/g, "'").replace(/^(my|our)\s+/, "").replace(
    /\s+/g,
    " ",
  ).trim();
}

/** Another question a recall asks, about whom or what, and what the memories it adds hold. */
interface OtherQuestion {
  question: string;
  /** Whom or what it asks about, as `explain` shows it ("Fergus", "my sister", "in 2024"). */
  about: string;
  /** Any of these words ("Fergus", "2024"), or these hashed terms (the mark of a limit). */
  mentions: { words: string } | { hashed: string[] };
  /** Whether it asks about a person: the words are then a name, or a relation's last word. */
  person?: boolean;
  /** Whether it adds a memory that mentions them, by its id and text (all, unless given). */
  keeps?: (id: string, text: string) => boolean;
}

/**
 * `query` asked of who the store says someone is, of when, or of what may keep the user from
 * something. A question about "my boss" is asked about each name the store gives the boss
 * ("Fergus"); one about "two years ago", about the year that is ("in 2024"); one about "Niamh",
 * about what the store says Niamh is to the user ("my sister"); one about "my car", about the name
 * the store gives it ("the Volvo"); "Can I hire a car?" as "Is there a reason I can't hire a
 * car?", of the memories that say what keeps the user from something. The memories that say who
 * someone is are read, among those the recall may show. None when it asks about no relation,
 * time, name, named thing or whether the user may.
 */
async function otherQuestions(asking: Asking, query: string): Promise<OtherQuestion[]> {
  const asked = askedLimit(query);
  const limits = asked
    ? [{ ...asked, mentions: { hashed: await asking.hasher.limits(asking.owner) } }]
    : [];
  return [...limits, ...await aboutWhomOrWhen(asking, query)].slice(0, OTHERS);
}

/** `query` asked about the names or the relation the store gives whom it asks about, or when. */
async function aboutWhomOrWhen(asking: Asking, query: string): Promise<OtherQuestion[]> {
  const [relation] = askedRelations(query);
  if (relation) return await aboutNames(asking, query, relation);
  const [time] = askedTimes(query, asking.at);
  if (time) {
    const { said, mentions } = time;
    return [{ question: askedOf(query, time, said), about: said, mentions: { words: mentions } }];
  }
  const [named] = askedNames(query);
  return named ? await aboutRelations(asking, query, named) : await aboutThingNames(asking, query);
}

/** `query` asked about each name the store gives the relation it asks about. */
async function aboutNames(
  asking: Asking,
  query: string,
  asked: AskedRelation,
): Promise<OtherQuestion[]> {
  const { owner, hasher } = asking;
  // Among the memories that define the relation, those that call someone as the question does
  // ("my pen pal", not "my best friend") are read, and their names asked about, first.
  const words = saidAs(query.slice(asked.start, asked.end));
  const [relations, worded] = await Promise.all([
    hasher.relations(owner, asked.relations),
    hasher.hashQuery(owner, words),
  ]);
  const weights = [...relations.map(() => RELATION_WEIGHT), ...worded.map(() => 1)];
  const defined = (await definitionsIn(asking, [...relations, ...worded], weights)).filter((d) =>
    d.relations.some((r) => asked.relations.includes(r))
  );
  const asWords = (d: Definition) => d.said !== undefined && saidAs(d.said) === words;
  const names = [...defined.filter(asWords), ...defined.filter((d) => !asWords(d))]
    .map(({ name }) => name);
  return [...new Set(names)].slice(0, OTHERS).map((name) => ({
    question: askedOf(query, asked, name),
    about: name,
    mentions: { words: bareName(name) },
    person: true,
  }));
}

/** `query` asked about each relation the store gives the name it asks about. */
async function aboutRelations(
  asking: Asking,
  query: string,
  asked: AskedName,
): Promise<OtherQuestion[]> {
  const name = bareName(asked.name);
  const said = await definitionsIn(asking, await asking.hasher.hashQuery(asking.owner, name));
  // "My sister Niamh" defines Niamh Kelly too, unless the store defines Niamh Kelly herself.
  const definedAs = (defined: string) => said.filter((d) => d.said && bareName(d.name) === defined);
  const exact = definedAs(name);
  const relations = (exact.length ? exact : definedAs(name.split(" ")[0])).map((d) => d.said!);
  return [...new Set(relations)].slice(0, OTHERS).map((words) => ({
    question: askedOf(query, asked, `my ${words}`),
    about: `my ${words}`,
    mentions: { words: words.split(" ").at(-1)! },
    person: true,
  }));
}

/**
 * `query` asked about each name the store gives the first thing it names that has one: "How long
 * have I had my car?" as "How long have I had the Volvo?" when a memory says "My car is a Volvo".
 * A thing's words may run into the question's verb ("our caravan kept" in "Where is our caravan
 * kept?"), so its shorter forms are read too, longest first, in the same memories.
 */
async function aboutThingNames(asking: Asking, query: string): Promise<OtherQuestion[]> {
  for (const asked of askedThings(query).slice(0, THINGS_MAX)) {
    const read = await textsIn(asking, await asking.hasher.hashQuery(asking.owner, asked));
    const words = asked.split(" ");
    for (let length = words.length; length > 0; length--) {
      const thing = words.slice(0, length).join(" ");
      const span = thingSpan(query, thing);
      if (!span) continue;
      const named = read.flatMap(({ id, text }) => {
        const name = text === null ? undefined : thingName(rankedText(text), thing);
        return name ? [{ id, name }] : [];
      });
      if (named.length === 0) continue;
      // The memories that give the name are asked about as the question is, not again.
      const givers = new Set(named.map(({ id }) => id));
      return [...new Set(named.map(({ name }) => name))].slice(0, OTHERS).map((name) => ({
        question: askedOf(query, span, `the ${name}`),
        about: name,
        mentions: { words: name },
        keeps: (id: string, text: string) => !givers.has(id) && saysName(text, name),
      }));
    }
  }
  return [];
}

/**
 * Another question ranked; it adds only the memories that mention whom or what it asks about, or
 * that hold what it asks them to.
 */
async function rankOther(
  asking: Asking,
  { question, about, mentions, keeps }: OtherQuestion,
  embed: (question: string) => Promise<Float32Array>,
  clock: RecallClock,
): Promise<QuestionRanking> {
  const { owner, hasher, index } = asking;
  const [vector, terms, mentioned] = await Promise.all([
    embed(question),
    hasher.hashQuery(owner, question),
    "hashed" in mentions ? mentions.hashed : hasher.hashQuery(owner, mentions.words),
  ]);
  const ranking = await rankQuestion(asking, { query: question, vector, terms }, clock);
  const mentioning = index.search(mentioned, 1);
  let answered = ranking.answered.filter(({ hit }) => mentioning.scoreOf(hit.id) > 0);
  if (keeps) {
    const texts = await readTexts(asking.source, answered.map(({ hit }) => hit), ranking.texts);
    answered = answered.filter(({ hit }, i) =>
      texts[i] !== null && keeps(hit.id, rankedText(texts[i]!))
    );
  }
  return {
    ...ranking,
    answered: answered.map((ranked) => ({
      ...ranked,
      parts: { ...ranked.parts, askedAbout: about },
    })),
  };
}

/**
 * The best `DEFINERS` memories holding `terms` (each of its `weights`, 1 unless given), among
 * those the recall may show, with their texts (`null` for one that cannot be read).
 */
async function textsIn(
  { index, scope, source }: Asking,
  terms: string[],
  weights?: number[],
): Promise<{ id: string; text: string | null }[]> {
  const hits = hitsOf(
    index,
    index.search(terms, DEFINERS, weights).hits.map(({ id }) => id).filter(scope.shown),
  );
  const texts = await readTexts(source, hits, new Map());
  return hits.map(({ id }, i) => ({ id, text: texts[i] }));
}

/** Who the memories `textsIn` reads for `terms` say someone is. */
async function definitionsIn(
  asking: Asking,
  terms: string[],
  weights?: number[],
): Promise<Definition[]> {
  const read = await textsIn(asking, terms, weights);
  return read.flatMap(({ text }) => text === null ? [] : definitions(text));
}

/** The memories `ids` as the reader reads them (the index's entries). */
function hitsOf(index: NamespaceIndex, ids: string[]): VectorHit[] {
  return ids.flatMap((id) => {
    const entry = index.entry(id);
    return entry ? [{ ...entry, distance: 0 }] : [];
  });
}

/** Which memories a recall may show (`shown`), and with a filter, the ids it keeps (`only`). */
interface RecallScope {
  shown: (id: string) => boolean;
  only?: string[];
}

/** How far the nearest memories stand out from the next ones (`nearestShape`). */
type NearestShape = ReturnType<typeof nearestShape>;

/** The memories of `index` a recall at `at` may show, under the caller's `filter`. */
function recallScope(index: NamespaceIndex, filter: CatalogFilter, at: number): RecallScope {
  const filtered = Object.values(filter).some((value) => value !== undefined);
  // Expired and replaced memories never come back; with a filter, only those it keeps.
  const shown = (id: string) => !index.hidden(id, at) && (!filtered || index.matches(id, filter));
  const only = filtered ? index.select(filter, at) : undefined;
  return { shown, only };
}

/** The best BM25 matches of the query's terms, and each memory's score relative to the best. */
function lexicalMatches(index: NamespaceIndex, terms: string[], size: number) {
  const matches = index.search(terms, size);
  return { matches, lexical: relativeLexical(matches) };
}

/** Where a recall searches by vector: the owner's namespace, near the query's vector. */
interface VectorSearch {
  vectors: VectorStore;
  owner: string;
  namespace: string;
  vector: Float32Array;
  signal?: AbortSignal;
}

/** What a recall pools the nearest memories with. */
interface CandidatePool {
  /** How many memories it pools (`poolSize`). */
  size: number;
  scope: RecallScope;
  matches: LexicalMatches;
  lexical: (id: string) => number;
  neighbours: (id: string) => string[];
  /** Each memory's kind and the embedder's weights, by which the pool is cut. */
  kind: (id: string) => MemoryKind;
  weights: FusionWeights;
}

/**
 * The candidates of a recall among the memories it may show (`gatherCandidates`), and the shape
 * of the nearest of them, on which recall abstains.
 */
async function searchCandidates(
  { vectors, owner, namespace, vector, signal }: VectorSearch,
  { size, scope: { shown, only }, matches, lexical, neighbours, kind, weights }: CandidatePool,
): Promise<{ candidates: VectorHit[]; shape: NearestShape }> {
  const found = await vectors.search(owner, namespace, vector, size, { ids: only, signal });
  const nearest = found.filter((hit) => shown(hit.id));
  const shape = nearestShape(nearest);
  const candidates = await gatherCandidates(size, {
    nearest,
    lexicalIds: matches.hits.map((hit) => hit.id).filter(shown),
    lexical,
    kind,
    weights,
    neighbours: (id) => neighbours(id).filter(shown),
    lookup: (ids) => vectors.search(owner, namespace, vector, ids.length, { ids, signal }),
  });
  return { candidates, shape };
}

/** Where a recall reads its memories' texts: through the reader, as the caller. */
interface TextSource {
  reader: MemoryReader;
  owner: string;
  /** The namespace's index, whose entries tell the reader how each memory is stored. */
  index: NamespaceIndex;
  options: ReadOptions;
}

/**
 * The texts of `hits`, in order (`null` for one that cannot be read); those in `known` whole
 * (not cut for ranking) are not read again.
 */
async function readTexts(
  { reader, owner, index, options }: TextSource,
  hits: VectorHit[],
  known: Map<string, string>,
): Promise<(string | null)[]> {
  return await Promise.all(hits.map((hit) => {
    const text = known.get(hit.id);
    if (text !== undefined && rankedWhole(text)) return text;
    return reader.read(owner, { ...hit, info: index.entry(hit.id)?.info }, options);
  }));
}

/** `readTexts` of the answers `hits`, best first, as many as one answer holds (`readWithin`). */
function readAnswers(
  source: TextSource,
  hits: VectorHit[],
  known: Map<string, string>,
): Promise<(string | null)[]> {
  const read = async (hit: VectorHit) => (await readTexts(source, [hit], known))[0];
  return readWithin(hits, read, (text) => utf8Length(text ?? ""));
}

/** The candidates' texts read for the re-ranker. */
interface CandidateTexts {
  /** The texts that could be read, by memory id. */
  texts: Map<string, string>;
  /** The texts the reader keeps decrypted: the re-ranker may keep what it derives from them. */
  held: Set<string>;
}

/**
 * Reads the texts of every candidate, for the re-ranker, `TEXT_READS` at a time; what ranking
 * reads of each is kept (`rankedText`).
 */
async function candidateTexts(
  source: TextSource,
  candidates: VectorHit[],
): Promise<CandidateTexts> {
  const texts = new Map<string, string>();
  for (let at = 0; at < candidates.length; at += TEXT_READS) {
    const slice = candidates.slice(at, at + TEXT_READS);
    const read = await readTexts(source, slice, new Map());
    slice.forEach((hit, i) => read[i] !== null && texts.set(hit.id, rankedText(read[i]!)));
  }
  // What the re-ranker derives from a text it may keep while the reader keeps the text.
  const held = new Set(
    candidates.filter((hit) => source.reader.holds(source.owner, hit.blobId)).flatMap((hit) =>
      texts.get(hit.id) ?? []
    ),
  );
  return { texts, held };
}

/**
 * Each memory whose text was read, by id, with the re-ranker's score where it is `weighed`
 * (`undefined` where not).
 */
async function rerankScores(
  reranker: Reranker,
  query: string,
  { texts, held }: CandidateTexts,
  weighed: (id: string) => boolean,
  signal?: AbortSignal,
): Promise<Map<string, number | undefined>> {
  const ids = [...texts.keys()].filter(weighed);
  const kept = new Set([...held].map(rankedText));
  const scores = ids.length === 0 ? [] : await reranker.rerank(
    query,
    ids.map((id) => rankedText(texts.get(id)!)),
    { signal, keep: (t) => kept.has(t) },
  );
  const scored = new Map(ids.map((id, i) => [id, scores[i]]));
  return new Map([...texts.keys()].map((id) => [id, scored.get(id)]));
}

/** Whether a memory is a turn of a conversation (it has a thread) or a standalone fact. */
function kindOf(index: NamespaceIndex, id: string) {
  return index.entry(id)?.info?.thread === undefined ? "fact" : "turn";
}

/** What a recall ranks: its candidates, for its query, at most `limit`. */
interface Ranking {
  candidates: VectorHit[];
  limit: number;
  query: string;
  /** The caller's minimum score, when set. */
  minScore?: number;
}

/** What a recall ranks its candidates on, besides their vectors. */
interface RankingEvidence {
  lexical: (id: string) => number;
  neighbours: (id: string) => string[];
  /** The re-ranker's scores, when there is a re-ranker. */
  reranked?: Map<string, number | undefined>;
  /** The texts read for the re-ranker, by memory id (none without one). */
  texts: Map<string, string>;
  /** Each memory's kind, whose weights apply. */
  kind: (id: string) => MemoryKind;
  /** The embedder's fusion weights. */
  weights: FusionWeights;
}

/** The candidates ranked (`rankCandidates`), best first, none below the minimum score. */
function rankRecall(
  { candidates, limit, query, minScore }: Ranking,
  { lexical, neighbours, reranked, texts, kind, weights }: RankingEvidence,
): RankedHit[] {
  const asked = questionType(query);
  return rankCandidates(
    candidates,
    limit,
    {
      lexical,
      neighbours,
      reranked,
      kind,
      weights,
      answer: (id) => {
        const text = asked && texts.get(id);
        return text ? Number(holdsAnswer(rankedText(text), asked)) : undefined;
      },
    },
    minScore ?? DEFAULT_MIN_SCORE,
  );
}

/**
 * The ranked memories a recall answers, and the margin (`abstain_below`) its best had to reach:
 * none when the best memory is a fact that hardly stands out, unless the caller set the minimum.
 */
function abstaining(
  ranked: RankedHit[],
  shape: NearestShape,
  index: NamespaceIndex,
  abstainBelow: number,
): { answered: RankedHit[]; abstainBelow: number } {
  const best = ranked[0]?.hit.id;
  const abstains = best !== undefined && kindOf(index, best) === "fact" &&
    abstainsAt(shape, abstainBelow);
  return { answered: abstains ? [] : ranked, abstainBelow };
}

/** The tags and provenance sealed in the rows of the ranked memories, in order. */
function openAttributes(
  seal: AttributeSeal,
  { owner, namespace, index }: { owner: string; namespace: string; index: NamespaceIndex },
  ranked: RankedHit[],
): Promise<OpenedAttributes[]> {
  return Promise.all(ranked.map(({ hit }) =>
    seal.attributes(
      { memoryId: hit.id, owner, namespace },
      index.entry(hit.id)?.info?.sealed,
    )
  ));
}

/**
 * The ranked memories as recall answers them, with their texts (`read`) and attributes, in
 * order; `explain` gives each what its score is made of.
 */
function recallResults(
  index: NamespaceIndex,
  ranked: RankedHit[],
  read: (string | null)[],
  attributes: OpenedAttributes[],
  explain?: boolean,
): RecallResult[] {
  // A memory erased while this recall ran is left out.
  return ranked.flatMap(({ hit, score, parts }, i) => {
    const entry = index.entry(hit.id);
    if (read[i] === null || !entry) return [];
    const { tags, rememberedBy } = attributes[i];
    return [{
      id: hit.id,
      blob_id: hit.blobId,
      text: read[i]!,
      tags,
      distance: hit.distance,
      score,
      created_at: new Date(entry.info?.firstCreatedAt ?? hit.createdAt).toISOString(),
      expires_at: entry.info?.expiresAt === undefined
        ? null
        : new Date(entry.info.expiresAt).toISOString(),
      remembered_by: rememberedByOf(rememberedBy),
      ...(explain && { explain: explanationOf(parts) }),
    }];
  });
}
