import assert from "node:assert/strict";
import { backendError } from "./errors.ts";
import { createLogger } from "./log.ts";

function logged(fields: Record<string, unknown>): Record<string, unknown> {
  const lines: string[] = [];
  createLogger("info", (line) => lines.push(line)).warn("it failed", fields);
  return JSON.parse(lines[0]);
}

Deno.test("log: fields named like secrets or memory text are redacted", () => {
  const entry = logged({ text: "I am vegetarian", delegate_key: "abcd", public_key: "ef01" });
  assert.deepEqual([entry.text, entry.delegate_key, entry.public_key], [
    "[redacted]",
    "[redacted]",
    "ef01",
  ]);
});

Deno.test("log: an error's causes are logged, without credentials in URLs or parsed input", () => {
  const refused = Object.assign(new Error("connect ECONNREFUSED 127.0.0.1:9"), {
    code: "ECONNREFUSED",
  });
  const request = new TypeError(
    "error sending request for url (https://user:pw@rpc.example/v1?apikey=SECRET#x)",
    { cause: refused },
  );
  const { error } = logged({ error: backendError("sui", "resolve a key", request) });
  assert.deepEqual(error, {
    name: "SvcError",
    code: "backend_unavailable",
    message: "Cannot resolve a key: sui is unavailable",
    cause: {
      name: "TypeError",
      message: "error sending request for url (https://rpc.example/…",
      cause: { name: "Error", code: "ECONNREFUSED", message: "connect ECONNREFUSED 127.0.0.1:9" },
    },
  });
  // Userinfo, paths (an RPC provider's token), queries, odd characters, header values.
  for (
    const [text, shown] of [
      ["Invalid URL: 'postgres://svc:SECRET@db:5432/svc'", "Invalid URL: 'postgres://db:5432/…"],
      ["(https://rpc.example/v1?apikey=ab(cd)ef)", "(https://rpc.example/…"],
      ["at https://user:p(w)d@host/v1 now", "at https://host/… now"],
      ["GET https://x.quiknode.pro/0123abcd/ failed", "GET https://x.quiknode.pro/… failed"],
      ["http://[::1]:8000 is down", "http://[::1]:8000 is down"],
      ['Invalid header value: "Bearer abc\\ndef"', 'Invalid header value: "Bearer [redacted]'],
    ]
  ) {
    assert.equal((logged({ error: new Error(text) }).error as { message: string }).message, shown);
  }
  let parsed: unknown;
  try {
    JSON.parse("I am vegetarian");
  } catch (e) {
    parsed = e;
  }
  const line = JSON.stringify(logged({ error: backendError("llm", "analyze", parsed) }));
  assert.doesNotMatch(line, /vegetarian/);
  assert.match(line, /SyntaxError/);
});
