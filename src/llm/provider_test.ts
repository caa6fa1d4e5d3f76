import assert from "node:assert/strict";
import { Provider } from "./provider.ts";

Deno.test("Provider.at names the URL without what may carry a credential", () => {
  assert.equal(
    new Provider("Ollama", "http://127.0.0.1:11434").at,
    "Ollama at http://127.0.0.1:11434",
  );
  assert.equal(
    new Provider("The API", "https://me:s3cret@llm.example/v1/?key=s3cret#x").at,
    "The API at https://llm.example/v1",
  );
  assert.equal(new Provider("Ollama", "not a url").at, "Ollama");
  assert.equal(new Provider("Ollama").at, "Ollama");
});

Deno.test("Provider.error quotes a refusal only of the caller's or the probe's input", () => {
  const ollama = new Provider("Ollama", "http://127.0.0.1:11434");
  const refusal = Object.assign(new Error("input too long: my secret memory"), { status: 400 });
  const unquoted = ollama.error("embed the text", refusal);
  assert.equal(unquoted.code, "bad_request");
  assert.equal(
    unquoted.message,
    "Ollama could not embed the text: it refused the text (HTTP 400: too long for the model, or " +
      "not text it takes?)",
  );
  assert.equal(
    ollama.error("answer", refusal, { quoted: true }).message,
    "Ollama could not answer: input too long: my secret memory",
  );
  assert.equal(
    ollama.error("embed the text", refusal, { probing: true }).message,
    "Ollama at http://127.0.0.1:11434 could not embed the text: input too long: my secret memory",
  );
});

Deno.test("Provider.error names an unexpected answer by its status, never quoting it", () => {
  const ollama = new Provider("Ollama");
  const page = ollama.error("answer", ollama.unexpected(400), { quoted: true });
  assert.equal(page.code, "backend_unavailable");
  assert.equal(page.message, "Ollama could not answer: it answered HTTP 400");
  assert.match(
    ollama.error("answer", ollama.unexpected()).message,
    /^Ollama could not answer: it answered with something other than its API's JSON/,
  );
});

Deno.test("Provider.normalised refuses a vector of the wrong size, of non-numbers or of zeros", () => {
  const ollama = new Provider("Ollama");
  assert.deepEqual([...ollama.normalised([3, 4], 2)], [0.6000000238418579, 0.800000011920929]);
  assert.throws(
    () => ollama.normalised([1], 2),
    /^SvcError: Ollama returned a vector of 1 dimensions/,
  );
  assert.throws(() => ollama.normalised([1, "x"], 2), /not a number \(at 1\)/);
  assert.throws(() => ollama.normalised([0, 0], 2), /only zeros/);
});
