import assert from "node:assert/strict";
import { parseStdioOptions, PRESETS, signInLabel } from "./options.ts";
import { UsageError } from "../client_flags.ts";

const LOCAL = PRESETS.local;
const PROD = PRESETS.prod;

Deno.test("svc-mcp options: relayer and dashboard precedence", () => {
  const env = { SVC_SERVER_URL: "http://env-relayer:1", SVC_WEB_URL: "http://env-web:2" };
  const moved = { SVC_PORT: "47910", SVC_DASHBOARD_PORT: "47911" };
  const cases: [string[], Record<string, string>, string | undefined, string][] = [
    // args, env, relayer, webUrl
    [[], {}, undefined, LOCAL.webUrl],
    [[], env, "http://env-relayer:1", "http://env-web:2"],
    [["--prod"], {}, PROD.relayer, PROD.webUrl],
    [["--prod"], env, PROD.relayer, PROD.webUrl],
    [["--local"], env, LOCAL.relayer, LOCAL.webUrl],
    [["--relayer", "http://flag:3"], env, "http://flag:3", "http://env-web:2"],
    [["--prod", "--relayer", "http://flag:3"], env, "http://flag:3", PROD.webUrl],
    [["--dev", "--web-url", "http://web-flag:4/"], {}, PRESETS.dev.relayer, "http://web-flag:4"],
    [["--web-url", "https://web-flag"], {}, undefined, "https://web-flag"],
    [["--staging"], {}, PRESETS.staging.relayer, PRESETS.staging.webUrl],
    // --local is this machine's relayer on the ports it was started with.
    [["--local"], moved, "http://127.0.0.1:47910", "http://localhost:47911"],
    [[], moved, undefined, "http://localhost:47911"],
  ];
  for (const [args, vars, relayer, webUrl] of cases) {
    const options = parseStdioOptions(args, vars);
    assert.equal(options.relayer, relayer, args.join(" "));
    assert.equal(options.webUrl, webUrl, args.join(" "));
  }
});

Deno.test("svc-mcp options: namespace, label, commands and debug", () => {
  const env = { SVC_NAMESPACE: "env-ns", SVC_CLIENT_LABEL: "env label", SVC_MCP_DEBUG: "1" };
  assert.equal(parseStdioOptions([], {}).namespace, undefined);
  assert.equal(parseStdioOptions([], env).namespace, "env-ns");
  assert.equal(parseStdioOptions(["--namespace", "flag-ns"], env).namespace, "flag-ns");
  assert.equal(parseStdioOptions(["--ns", "short-ns"], env).namespace, "short-ns");
  assert.equal(parseStdioOptions([], { SVC_NAMESPACE: "" }).namespace, undefined);
  assert.equal(parseStdioOptions([], env).label, "env label");
  assert.equal(parseStdioOptions(["--label", "flag label"], env).label, "flag label");
  assert.equal(parseStdioOptions([], {}, "laptop").label, "svc-mcp on laptop");
  // A key signed in from an MCP host names the host, unless a label was given.
  const plain = parseStdioOptions([], {}, "laptop");
  assert.equal(signInLabel(plain, "Claude Desktop"), "Claude Desktop via svc-mcp on laptop");
  assert.equal(signInLabel(plain, undefined), "svc-mcp on laptop");
  assert.equal(signInLabel(plain, " \u0007\u202e "), "svc-mcp on laptop");
  assert.equal(signInLabel(plain, "Cur\u001bsor\u202e"), "Cursor via svc-mcp on laptop");
  // A name of characters that show as nothing is no name.
  assert.equal(signInLabel(plain, "\u200b\u200e\u2060"), "svc-mcp on laptop");
  const long = signInLabel(plain, "é".repeat(40));
  assert.equal(long, `${"é".repeat(21)} via svc-mcp on laptop`);
  assert.ok(new TextEncoder().encode(long).length <= 64);
  assert.equal(signInLabel(parseStdioOptions([], env), "Claude Desktop"), "env label");
  assert.equal(signInLabel(parseStdioOptions(["--label", "mine"], {}), "Claude"), "mine");
  assert.equal(parseStdioOptions([], env).debug, true);
  assert.equal(parseStdioOptions([], {}).debug, false);
  assert.equal(parseStdioOptions([], {}).command, "serve");
  assert.equal(parseStdioOptions(["login", "--local"], {}).command, "login");
  assert.equal(parseStdioOptions(["--logout"], {}).command, "logout");
  assert.equal(parseStdioOptions(["-h"], {}).command, "help");
  assert.equal(parseStdioOptions(["--help", "--logout"], {}).command, "help");
  const forced = parseStdioOptions(["--login"], {});
  assert.deepEqual([forced.command, forced.forceLogin], ["serve", true]);
  assert.equal(parseStdioOptions([], {}).noBrowser, false);
  assert.equal(parseStdioOptions(["login", "--no-browser"], {}).noBrowser, true);
});

Deno.test("svc-mcp options: usage errors", () => {
  for (
    const args of [
      ["--unknown"],
      ["--relayer"],
      ["--relayer", "not a url"],
      ["--relayer", "ftp://host"],
      ["--web-url", "javascript:alert(1)"],
      ["--prod", "--local"],
      ["--namespace", "a", "--ns", "b"],
      ["--namespace", "a", "--namespace", "b"],
      ["--relayer", "http://a.test", "--relayer=http://b.test"],
      ["--namespace", ""],
      ["--namespace", " notes"],
      ["--ns", "notes "],
      ["--label", "x".repeat(65)],
      ["--ns", "a\tb"],
      ["--ns", "a\u0001"],
      ["--label", "lap\u001b[2Jtop"],
      ["--label", "\u202egnp"],
      ["--relayer", "http://user:s3cret@127.0.0.1:8000"],
      ["logout"],
      ["login", "extra"],
      ["--cache", "log.cache"],
      ["--blind", "--cache", ""],
    ]
  ) {
    assert.throws(() => parseStdioOptions(args, {}), UsageError, args.join(" "));
  }
  assert.throws(() => parseStdioOptions([], { SVC_SERVER_URL: "nope" }), UsageError);
  assert.throws(() => parseStdioOptions([], { SVC_NAMESPACE: "a\nb" }), /control characters/);
  assert.throws(
    () => parseStdioOptions(["--relayer", "http://u:s3cret@127.0.0.1:8000"], {}),
    (error) =>
      error instanceof UsageError && !error.message.includes("s3cret") &&
      error.message === "--relayer must not hold a user name or password",
  );
  assert.throws(
    () => parseStdioOptions(["--local"], { SVC_PORT: "abc" }),
    (error) =>
      error instanceof UsageError &&
      error.message === 'SVC_PORT must be a port from 1 to 65535 (got "abc")',
  );
  assert.throws(
    () => parseStdioOptions(["--bogus"], {}),
    (error) => error instanceof UsageError && error.message === "unknown option --bogus",
  );
});

Deno.test("svc-mcp options: --scope and --expires, else SVC_KEY_SCOPE and SVC_KEY_EXPIRES", () => {
  assert.deepEqual(parseStdioOptions([], {}).scope, {});
  assert.equal(parseStdioOptions([], {}).expires, undefined);
  const env = { SVC_KEY_SCOPE: "read", SVC_KEY_EXPIRES: "7d" };
  assert.deepEqual(parseStdioOptions([], env).scope, { operations: ["read"] });
  assert.equal(parseStdioOptions([], env).expires, "7d");
  const flags = parseStdioOptions(
    ["login", "--scope", "write,read:work", "--expires", "2099-01-01T00:00:00Z"],
    env,
  );
  assert.deepEqual(flags.scope, { namespaces: ["work"], operations: ["read", "write"] });
  assert.equal(flags.expires, "2099-01-01T00:00:00.000Z");
  for (const args of [["--scope", "fly"], ["--scope", "read:"], ["--expires", "soon"]]) {
    assert.throws(() => parseStdioOptions(args, {}), UsageError, args.join(" "));
  }
  assert.throws(() => parseStdioOptions(["--expires", "2001-01-01T00:00:00Z"], {}), /in the past/);
  // A problem of a variable names the variable, not a flag that was not given.
  assert.throws(
    () => parseStdioOptions([], { SVC_KEY_EXPIRES: "3x" }),
    /^Error: SVC_KEY_EXPIRES must be a duration/,
  );
  assert.throws(
    () => parseStdioOptions([], { SVC_KEY_SCOPE: "frob" }),
    /^Error: SVC_KEY_SCOPE: /,
  );
  assert.throws(
    () => parseStdioOptions(["--scope", "frob"], { SVC_KEY_SCOPE: "read" }),
    /^Error: --scope: /,
  );
});

Deno.test("svc-mcp options: SVC_PORT is read only when the local relayer may be used", () => {
  const elsewhere = ["--relayer", "https://r.example", "--web-url", "https://w.example"];
  assert.equal(parseStdioOptions(elsewhere, { SVC_PORT: "0" }).relayer, "https://r.example");
  assert.throws(() => parseStdioOptions([], { SVC_PORT: "0" }), UsageError);
  assert.equal(
    parseStdioOptions(["--relayer", "https://r.example"], { SVC_DASHBOARD_PORT: "5999" }).webUrl,
    "http://localhost:5999",
  );
});

Deno.test("svc-mcp options: --cache, with --blind only", () => {
  assert.equal(parseStdioOptions(["--blind", "--cache", "my.cache"], {}).cacheFile, "my.cache");
  assert.equal(parseStdioOptions(["--blind"], {}).cacheFile, undefined);
  assert.throws(() => parseStdioOptions(["--cache", "my.cache"], {}), /add --blind/);
});
