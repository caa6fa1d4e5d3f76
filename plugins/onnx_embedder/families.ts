/**
 * What a model wants that its files may not say: the prefixes before a query and before a
 * document (its `config_sentence_transformers.json`'s `prompts` first, else what its family's
 * model card prescribes, recognised by name), and, for a directory without a pooling config
 * (the hub's transformers.js copies have none), its family's pooling.
 */
import type { PoolingMode } from "./pooling.ts";

/** The text put before a recall query and before a memory, each possibly empty. */
export interface Prefixes {
  /** Before a recall query (`purpose: "query"`). */
  query: string;
  /** Before a memory (`purpose: "document"`). */
  document: string;
}

const BGE_EN = "Represent this sentence for searching relevant passages: ";
const BGE_ZH = "为这个句子生成表示以用于检索相关文章：";

/** Model families whose card asks for prefixes or a pooling, by a pattern on the model's name. */
const FAMILIES: { pattern: RegExp; prefixes: Prefixes; pooling: PoolingMode }[] = [
  // intfloat/e5-*, intfloat/multilingual-e5-* (not the instruction-tuned e5-mistral).
  {
    pattern: /(^|[/_-])(multilingual-)?e5-(small|base|large)/i,
    prefixes: { query: "query: ", document: "passage: " },
    pooling: "mean",
  },
  {
    pattern: /bge-(small|base|large)-en/i,
    prefixes: { query: BGE_EN, document: "" },
    pooling: "cls",
  },
  {
    pattern: /bge-(small|base|large)-zh/i,
    prefixes: { query: BGE_ZH, document: "" },
    pooling: "cls",
  },
  { pattern: /snowflake-arctic-embed/i, prefixes: { query: BGE_EN, document: "" }, pooling: "cls" },
  {
    pattern: /nomic-embed-text/i,
    prefixes: { query: "search_query: ", document: "search_document: " },
    pooling: "mean",
  },
];

/** The prefixes of a `config_sentence_transformers.json`'s `prompts`, when it names any. */
function fromPrompts(prompts: unknown): Prefixes | undefined {
  if (typeof prompts !== "object" || prompts === null) return undefined;
  const table = prompts as Record<string, unknown>;
  const text = (...keys: string[]) => {
    for (const key of keys) if (typeof table[key] === "string") return table[key] as string;
    return undefined;
  };
  const query = text("query");
  const document = text("document", "passage", "corpus", "doc");
  if (query === undefined && document === undefined) return undefined;
  return { query: query ?? "", document: document ?? "" };
}

/**
 * The model's prefixes: `prompts` from its sentence-transformers config first, then its family
 * (by `name`), else none.
 */
export function modelPrefixes(name: string, sentenceTransformersConfig?: unknown): Prefixes {
  const config = sentenceTransformersConfig as { prompts?: unknown } | undefined;
  const declared = fromPrompts(config?.prompts);
  if (declared) return declared;
  return FAMILIES.find(({ pattern }) => pattern.test(name))?.prefixes ??
    { query: "", document: "" };
}

/** The pooling of the model's family, when its name says which. */
export function familyPooling(name: string): PoolingMode | undefined {
  return FAMILIES.find(({ pattern }) => pattern.test(name))?.pooling;
}
