/**
 * The sentence encoder's worker (see `EmbedWorker` in the kit): owns the onnxruntime session, so
 * that a run of it never stalls the relayer's event loop. `open` carries the model's directory.
 */
import { serveEmbedWorker } from "../../src/kit.ts";
import { UseModel } from "./model.ts";

serveEmbedWorker(async (dir) => await UseModel.open(new URL(dir as string)));
