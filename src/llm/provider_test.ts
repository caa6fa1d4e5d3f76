import assert from "node:assert/strict";
import { providerAt } from "./provider.ts";

Deno.test("providerAt names the URL without what may carry a credential", () => {
  assert.equal(providerAt("Ollama", "http://127.0.0.1:11434"), "Ollama at http://127.0.0.1:11434");
  assert.equal(
    providerAt("The API", "https://me:s3cret@llm.example/v1/?key=s3cret#x"),
    "The API at https://llm.example/v1",
  );
  assert.equal(providerAt("Ollama", "not a url"), "Ollama");
});
