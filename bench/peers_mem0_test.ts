/** The embeddings endpoint the peer benchmark feeds mem0 from (not the benchmark itself). */
import assert from "node:assert/strict";
import { GloveEmbedder } from "../plugins/glove_embedder/mod.ts";
import { TEST_MODELS_DIR } from "../tests/relayer_process.ts";
import { embeddingsEndpoint } from "./peers_mem0.ts";

const post = (url: string, body: unknown) =>
  fetch(url, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body),
  });

Deno.test("the peers' endpoint serves svc's GloVe vectors in OpenAI's embeddings shape", async () => {
  const embedder = await GloveEmbedder.open({ cacheDir: TEST_MODELS_DIR });
  const endpoint = embeddingsEndpoint(embedder);
  try {
    assert.match(endpoint.url, /^http:\/\/127\.0\.0\.1:\d+\/v1$/);
    const texts = ["Ada commutes to work by bicycle", "How does Ada get to the office?"];
    const response = await post(`${endpoint.url}/embeddings`, {
      model: "svc-glove",
      input: texts,
      encoding_format: "float",
      dimensions: embedder.dimensions,
    });
    assert.equal(response.status, 200);
    const { object, data } = await response.json();
    assert.equal(object, "list");
    const expected = await embedder.embed(texts);
    assert.deepEqual(data.map((d: { index: number }) => d.index), [0, 1]);
    assert.deepEqual(data[0].embedding, Array.from(expected[0]));
    assert.deepEqual(data[1].embedding, Array.from(expected[1]));

    const one = await (await post(`${endpoint.url}/embeddings`, { input: texts[0] })).json();
    assert.deepEqual(one.data[0].embedding, Array.from(expected[0]));
    assert.deepEqual(endpoint.counts, { embedding_requests: 2, embedded_texts: 3, llm_calls: 0 });
  } finally {
    await endpoint.close();
  }
});

Deno.test("the peers' endpoint refuses and counts LLM calls, other sizes and bad input", async () => {
  const embedder = await GloveEmbedder.open({ cacheDir: TEST_MODELS_DIR });
  const endpoint = embeddingsEndpoint(embedder);
  try {
    const chat = await post(`${endpoint.url}/chat/completions`, { messages: [] });
    assert.equal(chat.status, 400);
    assert.match((await chat.json()).error.message, /no language model/);
    const wrongSize = await post(`${endpoint.url}/embeddings`, { input: "x", dimensions: 1536 });
    assert.equal(wrongSize.status, 400);
    await wrongSize.body?.cancel();
    const notText = await post(`${endpoint.url}/embeddings`, { input: [1, 2] });
    assert.equal(notText.status, 400);
    await notText.body?.cancel();
    assert.deepEqual(endpoint.counts, { embedding_requests: 0, embedded_texts: 0, llm_calls: 1 });
  } finally {
    await endpoint.close();
  }
});
