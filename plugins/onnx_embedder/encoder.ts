/**
 * The inference itself: texts → tokens (`@huggingface/tokenizers`, from the model's
 * `tokenizer.json`) → the ONNX graph (`onnxruntime-node`) → pooled, normalised vectors. It runs
 * inside the embedder's worker (`worker.ts`), since a run of the graph holds its thread.
 */
import * as ort from "onnxruntime-node";
import { Tokenizer } from "@huggingface/tokenizers";
import { normalise, pool } from "./pooling.ts";
import type { ModelRecipe } from "./model_dir.ts";

/** Graph inputs the encoder knows how to feed. */
const INPUTS = new Set(["input_ids", "attention_mask", "token_type_ids"]);
/** Graph outputs holding the token states, in the order they are preferred. */
const TOKEN_OUTPUTS = ["last_hidden_state", "token_embeddings"];

/** A text's tokens: ids and token types, special tokens included. */
interface Encoded {
  ids: number[];
  types: number[];
}

/** What the worker needs of a recipe (plain data, sent as a message). */
export type EncoderRecipe = Pick<
  ModelRecipe,
  "dir" | "modelFile" | "tokenizerConfig" | "pooling" | "maxLength" | "hidden"
>;

/** Encoder settings that do not change the vectors. */
export interface EncoderOptions {
  /** Threads of one run of the graph; 0 lets onnxruntime choose. */
  threads?: number;
}

/** Tokenises and runs one batch at a time; `release` frees the session. */
export class SentenceEncoder {
  readonly #session: ort.InferenceSession;
  readonly #tokenizer: Tokenizer;
  readonly #recipe: EncoderRecipe;
  readonly #output: string;
  readonly #specials: number;
  readonly #padId: number;
  readonly #unkId: number;

  private constructor(session: ort.InferenceSession, tokenizer: Tokenizer, recipe: EncoderRecipe) {
    this.#session = session;
    this.#tokenizer = tokenizer;
    this.#recipe = recipe;
    this.#output = TOKEN_OUTPUTS.find((name) => session.outputNames.includes(name)) ??
      (session.outputNames.includes("sentence_embedding")
        ? "sentence_embedding"
        : session.outputNames[0]);
    this.#specials = tokenizer.post_processor?.([], null, true).tokens.length ?? 0;
    const config = recipe.tokenizerConfig;
    const token = (key: string) => {
      const value = config[key];
      const content = typeof value === "string"
        ? value
        : (value as { content?: string } | undefined)?.content;
      return content === undefined ? undefined : tokenizer.token_to_id(content);
    };
    this.#unkId = token("unk_token") ?? tokenizer.token_to_id("[UNK]") ??
      tokenizer.token_to_id("<unk>") ?? 0;
    this.#padId = token("pad_token") ?? tokenizer.token_to_id("[PAD]") ??
      tokenizer.token_to_id("<pad>") ?? 0;
  }

  /** Loads the tokenizer and the graph; throws a sentence naming what could not be read. */
  static async open(recipe: EncoderRecipe, options: EncoderOptions = {}): Promise<SentenceEncoder> {
    let tokenizer: Tokenizer;
    try {
      const json = JSON.parse(await Deno.readTextFile(`${recipe.dir}/tokenizer.json`));
      tokenizer = new Tokenizer(json, recipe.tokenizerConfig);
    } catch (error) {
      throw new Error(`tokenizer.json is not a tokenizer the library reads (${message(error)})`);
    }
    let session: ort.InferenceSession;
    try {
      session = await ort.InferenceSession.create(`${recipe.dir}/${recipe.modelFile}`, {
        intraOpNumThreads: options.threads ?? 0,
        interOpNumThreads: 1,
        graphOptimizationLevel: "all",
        // Idle threads sleep rather than spin: the relayer shares the cores with the model.
        extra: {
          session: { intra_op: { allow_spinning: "0" }, inter_op: { allow_spinning: "0" } },
        },
      });
    } catch (error) {
      throw new Error(`onnxruntime cannot load ${recipe.modelFile} (${message(error)})`);
    }
    const unknown = session.inputNames.filter((name) => !INPUTS.has(name));
    if (unknown.length || !session.inputNames.includes("input_ids")) {
      await session.release();
      throw new Error(
        `${recipe.modelFile} takes inputs ${session.inputNames.join(", ")}; the embedder feeds ` +
          `input_ids, attention_mask and token_type_ids only`,
      );
    }
    return new SentenceEncoder(session, tokenizer, recipe);
  }

  /** A text's tokens, truncated to the model's length with the special tokens kept. */
  #encode(text: string): Encoded {
    const tokenizer = this.#tokenizer;
    const room = Math.max(1, this.#recipe.maxLength - this.#specials);
    const words = tokenizer.tokenize(text, { add_special_tokens: false }).slice(0, room);
    const processed = tokenizer.post_processor
      ? tokenizer.post_processor(words, null, true)
      : { tokens: words, token_type_ids: undefined };
    const tokens = processed.tokens.length
      ? processed.tokens
      : [tokenizer.id_to_token(this.#unkId) ?? ""];
    return {
      ids: tokens.map((token) => tokenizer.token_to_id(token) ?? this.#unkId),
      types: processed.token_type_ids ?? tokens.map(() => 0),
    };
  }

  /** One normalised vector per text, for a batch run in one go. */
  async encode(texts: string[]): Promise<Float32Array[]> {
    if (texts.length === 0) return [];
    const encoded = texts.map((text) => this.#encode(text));
    const length = Math.max(...encoded.map((e) => e.ids.length));
    const shape = [texts.length, length];
    const ids = new BigInt64Array(texts.length * length).fill(BigInt(this.#padId));
    const mask = new BigInt64Array(texts.length * length);
    const types = new BigInt64Array(texts.length * length);
    for (const [b, e] of encoded.entries()) {
      for (let s = 0; s < e.ids.length; s++) {
        ids[b * length + s] = BigInt(e.ids[s]);
        mask[b * length + s] = 1n;
        types[b * length + s] = BigInt(e.types[s] ?? 0);
      }
    }
    const all: Record<string, ort.Tensor> = {
      input_ids: new ort.Tensor("int64", ids, shape),
      attention_mask: new ort.Tensor("int64", mask, shape),
      token_type_ids: new ort.Tensor("int64", types, shape),
    };
    const feeds = Object.fromEntries(this.#session.inputNames.map((name) => [name, all[name]]));
    const result = await this.#session.run(feeds, [this.#output]);
    const output = result[this.#output];
    try {
      if (output.type !== "float32") {
        throw new Error(`output ${this.#output} is ${output.type}; a float32 output is needed`);
      }
      const data = output.data as Float32Array;
      const dims = output.dims;
      let vectors: Float32Array[];
      if (dims.length === 3) {
        if (this.#recipe.hidden !== undefined && dims[2] !== this.#recipe.hidden) {
          throw new Error(
            `output ${this.#output} has ${dims[2]} values per token; the config says ` +
              `${this.#recipe.hidden}`,
          );
        }
        vectors = pool(data, mask, dims, this.#recipe.pooling);
      } else if (dims.length === 2) {
        // Already pooled by the graph (a `sentence_embedding` output).
        vectors = Array.from(
          { length: dims[0] },
          (_, b) => data.slice(b * dims[1], (b + 1) * dims[1]),
        );
      } else {
        throw new Error(`output ${this.#output} has shape [${dims.join(", ")}]`);
      }
      return vectors.map(normalise);
    } finally {
      output.dispose?.();
    }
  }

  /** Frees the session. */
  async release(): Promise<void> {
    await this.#session.release();
  }
}

function message(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
