/**
 * A tiny but real sentence-transformers model directory, built from nothing for tests and
 * benchmarks: an ONNX graph (`onnx_graph.ts`: token and token-type embedding lookups
 * masked by the attention mask, giving `last_hidden_state` as a BERT export does), a WordPiece
 * `tokenizer.json` in the layout of the hub's BERT tokenizers, and the config files the hub
 * puts beside them (`config.json`, `tokenizer_config.json`, `special_tokens_map.json`,
 * `modules.json`, `1_Pooling/config.json`). Nothing binary is checked in: this module writes it.
 *
 * @example
 * ```ts
 * const dir = await Deno.makeTempDir();
 * await writeTinyModel(dir, { pooling: "mean" });
 * const embedder = await OnnxEmbedder.open({ dir });
 * ```
 */
import { seededRandom } from "@svc/util/seeded_random";
import { GraphBuilder } from "../onnx_graph.ts";

/** The words of the tiny vocabulary, besides the special tokens and a few `##` pieces. */
const WORDS = [
  "i my me you your we our the a an of to in on at and or is are was what which who where",
  "when how do does did called name adore love like dog dogs cat rex pet quarterly tax",
  "filing deadline work bicycle commute get live city paris coffee tea drink morning sister",
  "brother doctor allergy peanuts run ##s ##ing ##ed query passage represent this sentence",
  "for searching relevant passages : . , ? !",
].join(" ").split(" ");
const SPECIAL = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"];

/** The tiny model's pooling, as `1_Pooling/config.json` states it. */
export type TinyPooling = "mean" | "cls" | "max";

/** How the tiny model directory is laid out. */
export interface TinyModelOptions {
  /** The pooling `1_Pooling/config.json` names (default `mean`). */
  pooling?: TinyPooling;
  /** Size of the hidden state (default 32). */
  hidden?: number;
  /** Whether `modules.json` lists a `Normalize` module (default `true`). */
  normalize?: boolean;
  /** Whether the graph takes `token_type_ids`, as BERT exports do (default `true`). */
  tokenTypes?: boolean;
  /** `sentence_bert_config.json`'s `max_seq_length`; no such file when absent. */
  maxSeqLength?: number;
  /** Where the graph goes inside the directory (default `model.onnx`; the hub: `onnx/model.onnx`). */
  modelPath?: string;
  /** `config_sentence_transformers.json`'s `prompts`; no such file when absent. */
  prompts?: Record<string, string>;
  /** Seed of the embedding table (default 1). */
  seed?: number;
  /** Another graph to write instead (its state size must be `hidden`), e.g. a larger one. */
  graph?: Uint8Array;
}

/** The vocabulary: special tokens, then the words, by id. */
export function tinyVocabulary(): string[] {
  return [...SPECIAL, ...WORDS];
}

/** The tiny model's weights: a row of `hidden` values per token id, and per token type. */
export interface TinyTables {
  hidden: number;
  /** `[vocabulary, hidden]`, row-major. */
  words: Float32Array;
  /** `[2, hidden]`, row-major; absent for a model without token types. */
  types?: Float32Array;
}

/** The weights `tinyOnnxModel` writes into its graph, for checking its outputs by hand. */
export function tinyTables(options: TinyModelOptions = {}): TinyTables {
  const hidden = options.hidden ?? 32;
  const next = random(options.seed ?? 1);
  const words = floats(tinyVocabulary().length * hidden, next);
  const types = (options.tokenTypes ?? true) ? floats(2 * hidden, () => next() * 0.1) : undefined;
  return { hidden, words, types };
}

/**
 * The ONNX model's bytes: `last_hidden_state[b, s] = (words[input_ids[b, s]] +
 * types[token_type_ids[b, s]]) * attention_mask[b, s]`.
 */
function tinyOnnxModel(options: TinyModelOptions = {}): Uint8Array {
  const { hidden, words, types } = tinyTables(options);
  const vocabulary = tinyVocabulary().length;
  const graph = new GraphBuilder("tiny_sentence_encoder");
  const shape = ["batch_size", "sequence_length"];
  const ids = graph.input("input_ids", "int64", shape);
  const attention = graph.input("attention_mask", "int64", shape);
  let states = graph.node("Gather", [
    graph.floats("word_embeddings", [vocabulary, hidden], words),
    ids,
  ]);
  if (types) {
    const tokenTypes = graph.input("token_type_ids", "int64", shape);
    const table = graph.floats("type_embeddings", [2, hidden], types);
    states = graph.node("Add", [states, graph.node("Gather", [table, tokenTypes])]);
  }
  const mask = graph.node("Unsqueeze", [
    graph.node("Cast", [attention], { to: 1 }),
    graph.ints("last_axis", [1], [-1]),
  ]);
  graph.output(
    graph.node("Mul", [states, mask], {}, "last_hidden_state"),
    "float",
    [...shape, hidden],
  );
  return graph.encode(14);
}

/** A WordPiece `tokenizer.json` over the tiny vocabulary, as the hub's BERT tokenizers are. */
function tinyTokenizerJson(): Record<string, unknown> {
  const vocabulary = tinyVocabulary();
  return {
    version: "1.0",
    truncation: null,
    padding: null,
    added_tokens: SPECIAL.map((content, id) => ({
      id,
      content,
      single_word: false,
      lstrip: false,
      rstrip: false,
      normalized: false,
      special: true,
    })),
    normalizer: {
      type: "BertNormalizer",
      clean_text: true,
      handle_chinese_chars: true,
      strip_accents: null,
      lowercase: true,
    },
    pre_tokenizer: { type: "BertPreTokenizer" },
    post_processor: {
      type: "TemplateProcessing",
      single: [
        { SpecialToken: { id: "[CLS]", type_id: 0 } },
        { Sequence: { id: "A", type_id: 0 } },
        { SpecialToken: { id: "[SEP]", type_id: 0 } },
      ],
      pair: [
        { SpecialToken: { id: "[CLS]", type_id: 0 } },
        { Sequence: { id: "A", type_id: 0 } },
        { SpecialToken: { id: "[SEP]", type_id: 0 } },
        { Sequence: { id: "B", type_id: 1 } },
        { SpecialToken: { id: "[SEP]", type_id: 1 } },
      ],
      special_tokens: {
        "[CLS]": { id: "[CLS]", ids: [2], tokens: ["[CLS]"] },
        "[SEP]": { id: "[SEP]", ids: [3], tokens: ["[SEP]"] },
      },
    },
    decoder: { type: "WordPiece", prefix: "##", cleanup: true },
    model: {
      type: "WordPiece",
      unk_token: "[UNK]",
      continuing_subword_prefix: "##",
      max_input_chars_per_word: 100,
      vocab: Object.fromEntries(vocabulary.map((token, id) => [token, id])),
    },
  };
}

const POOLING_KEYS = {
  cls: "pooling_mode_cls_token",
  mean: "pooling_mode_mean_tokens",
  max: "pooling_mode_max_tokens",
} as const;

/** Writes the whole model directory (the graph and every config file) into `dir`. */
export async function writeTinyModel(dir: string, options: TinyModelOptions = {}): Promise<void> {
  const hidden = options.hidden ?? 32;
  const pooling = options.pooling ?? "mean";
  const modelPath = options.modelPath ?? "model.onnx";
  const json = (value: unknown) => JSON.stringify(value, null, 2) + "\n";
  const files: Record<string, string | Uint8Array> = {
    [modelPath]: options.graph ?? tinyOnnxModel(options),
    "tokenizer.json": json(tinyTokenizerJson()),
    "config.json": json({
      _name_or_path: "svc/tiny-sentence-encoder",
      architectures: ["BertModel"],
      model_type: "bert",
      hidden_size: hidden,
      max_position_embeddings: 64,
      vocab_size: tinyVocabulary().length,
      type_vocab_size: 2,
    }),
    "tokenizer_config.json": json({
      tokenizer_class: "BertTokenizer",
      do_lower_case: true,
      model_max_length: 512,
      cls_token: "[CLS]",
      sep_token: "[SEP]",
      pad_token: "[PAD]",
      unk_token: "[UNK]",
      mask_token: "[MASK]",
    }),
    "special_tokens_map.json": json({
      cls_token: "[CLS]",
      sep_token: "[SEP]",
      pad_token: "[PAD]",
      unk_token: "[UNK]",
      mask_token: "[MASK]",
    }),
    "modules.json": json([
      { idx: 0, name: "0", path: "", type: "sentence_transformers.models.Transformer" },
      { idx: 1, name: "1", path: "1_Pooling", type: "sentence_transformers.models.Pooling" },
      ...((options.normalize ?? true)
        ? [{
          idx: 2,
          name: "2",
          path: "2_Normalize",
          type: "sentence_transformers.models.Normalize",
        }]
        : []),
    ]),
    "1_Pooling/config.json": json({
      word_embedding_dimension: hidden,
      pooling_mode_cls_token: false,
      pooling_mode_mean_tokens: false,
      pooling_mode_max_tokens: false,
      pooling_mode_mean_sqrt_len_tokens: false,
      [POOLING_KEYS[pooling]]: true,
    }),
  };
  if (options.maxSeqLength !== undefined) {
    files["sentence_bert_config.json"] = json({
      max_seq_length: options.maxSeqLength,
      do_lower_case: false,
    });
  }
  if (options.prompts) {
    files["config_sentence_transformers.json"] = json({
      prompts: options.prompts,
      default_prompt_name: null,
      similarity_fn_name: "cosine",
    });
  }
  for (const [path, content] of Object.entries(files)) {
    const target = `${dir}/${path}`;
    await Deno.mkdir(target.slice(0, target.lastIndexOf("/")), { recursive: true });
    if (typeof content === "string") await Deno.writeTextFile(target, content);
    else await Deno.writeFile(target, content);
  }
}

/** A deterministic generator of numbers in [-1, 1) (mulberry32). */
export function random(seed: number): () => number {
  const next = seededRandom(seed);
  return () => next() * 2 - 1;
}

/** `count` numbers of `next`. */
export function floats(count: number, next: () => number): Float32Array {
  const values = new Float32Array(count);
  for (let i = 0; i < count; i++) values[i] = next();
  return values;
}
