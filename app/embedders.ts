/**
 * The embedder plugins the relayer can choose from (`SVC_EMBEDDER`), each describing itself:
 * adding an embedder is one package and one line here.
 */
import type { EmbedderPlugin } from "@svc/relayer/kit";
import { glovePlugin } from "@svc/glove-embedder/plugin";
import { lexicalPlugin } from "@svc/lexical-embedder/plugin";
import { onnxPlugin } from "@svc/onnx-embedder/plugin";
import { usePlugin } from "@svc/use-embedder/plugin";
import { ollamaPlugin } from "@svc/ollama/plugin";
import { openAiPlugin } from "@svc/openai/plugin";

/** Every embedder plugin, by the value of `SVC_EMBEDDER` that chooses it. */
export const EMBEDDERS: ReadonlyMap<string, EmbedderPlugin> = new Map(
  ([
    glovePlugin,
    lexicalPlugin,
    onnxPlugin,
    usePlugin,
    ollamaPlugin,
    openAiPlugin,
  ] as EmbedderPlugin[]).map((plugin) => [plugin.kind, plugin]),
);

/** The plugin of `kind`, which the configuration checked is one. */
export function embedderPlugin(kind: string): EmbedderPlugin {
  const plugin = EMBEDDERS.get(kind);
  if (!plugin) throw new Error(`No embedder plugin is called ${kind}`);
  return plugin;
}
