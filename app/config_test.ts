import assert from "node:assert/strict";
import type { OllamaSettings } from "@svc/ollama/settings";
import { DEFAULT_DOWNLOAD, type OnnxSettings } from "@svc/onnx-embedder/settings";
import { Ed25519Keypair } from "@mysten/sui/keypairs/ed25519";
import { Secp256k1Keypair } from "@mysten/sui/keypairs/secp256k1";
import { readConfig } from "./config.ts";

const id = (digit: string) => "0x" + digit.repeat(64);

function problemsOf(env: Record<string, string>): string[] {
  const result = readConfig(env);
  assert.equal(result.ok, false);
  return result.ok ? [] : result.problems;
}

Deno.test("the embedded default needs no network setting", () => {
  const result = readConfig({});
  assert.ok(result.ok);
  const { chain, cipher, blobStore, embedder, llm } = result.config;
  assert.deepEqual(
    [chain, cipher, blobStore, embedder, llm],
    [{ kind: "local" }, { kind: "local" }, { kind: "sqlite" }, {
      kind: "use",
      settings: { modelsDir: "./data/models" },
      modelsDir: "./data/models",
      recommended: {
        model: "sentence-transformers/all-MiniLM-L6-v2",
        revision: "main",
        modelsDir: "./data/models",
        endpoint: "https://huggingface.co",
        batchSize: 32,
        threads: 0,
        download: DEFAULT_DOWNLOAD,
      },
    }, { kind: "local" }],
  );
});

Deno.test("network mode names every missing setting at once", () => {
  const problems = problemsOf({ SVC_CHAIN: "sui", SVC_CIPHER: "seal", SVC_BLOB_STORE: "walrus" });
  for (
    const name of [
      "SVC_SUI_RPC_URL",
      "SVC_PACKAGE_ID",
      "SVC_REGISTRY_ID",
      "SVC_SEAL_KEY_SERVERS",
      "SVC_WALRUS_PUBLISHER_URL",
      "SVC_WALRUS_AGGREGATOR_URLS",
      "SVC_WALRUS_SYSTEM_OBJECT_ID (or SVC_WALRUS_PACKAGE_ID)",
      "SVC_WALRUS_OWNER_KEY",
    ]
  ) assert.ok(problems.some((p) => p.startsWith(`${name} is required`)), name);
  assert.equal(problems.length, 8);
});

Deno.test("network settings are parsed and malformed ones reported without secrets", () => {
  const good = readConfig({
    SVC_CHAIN: "sui",
    SVC_CIPHER: "seal",
    SVC_BLOB_STORE: "walrus",
    SVC_SUI_RPC_URL: "http://127.0.0.1:9100",
    SVC_PACKAGE_ID: "0x2A",
    SVC_REGISTRY_ID: id("b"),
    SVC_SEAL_KEY_SERVERS: `${id("1")}:1, ${id("2")}:2`,
    SVC_SEAL_THRESHOLD: "3",
    SVC_WALRUS_PUBLISHER_URL: "http://127.0.0.1:9200",
    SVC_WALRUS_AGGREGATOR_URLS: "http://127.0.0.1:9201,http://127.0.0.1:9202",
    SVC_WALRUS_PACKAGE_ID: id("c"),
    SVC_SPONSOR_PRIVATE_KEY: "5".repeat(64),
    SVC_WALRUS_OWNER_KEY: "6".repeat(64),
  });
  assert.ok(good.ok);
  const { chain, cipher, blobStore } = good.config;
  assert.ok(chain.kind === "sui" && cipher.kind === "seal" && blobStore.kind === "walrus");
  assert.equal(chain.sui.packageId, "0x" + "0".repeat(62) + "2a");
  assert.equal(cipher.seal.packageId, chain.sui.packageId);
  assert.deepEqual(cipher.seal.keyServers, [
    { objectId: id("1"), weight: 1 },
    { objectId: id("2"), weight: 2 },
  ]);
  assert.equal(cipher.seal.threshold, 3);
  assert.equal(blobStore.walrus.aggregatorUrls.length, 2);
  assert.equal(blobStore.walrus.epochs, 5);
  assert.equal(blobStore.walrus.rpcUrl, "http://127.0.0.1:9100");

  const secret = "f".repeat(63) + "G";
  const problems = problemsOf({
    SVC_CHAIN: "local",
    SVC_CIPHER: "seal",
    SVC_BLOB_STORE: "walrus",
    SVC_SUI_RPC_URL: "ftp://x",
    SVC_PACKAGE_ID: "0xnothex",
    SVC_REGISTRY_ID: id("b"),
    SVC_SEAL_KEY_SERVERS: `${id("1")}:1,bad:2,0x${"1".repeat(64)}:3, ${id("2")}:0`,
    SVC_SEAL_THRESHOLD: "2",
    SVC_SEAL_SERVER_KEY: secret,
    SVC_WALRUS_OWNER_KEY: secret,
    SVC_WALRUS_EPOCHS: "0",
    SVC_WALRUS_PACKAGE_ID: id("c"),
    SVC_WALRUS_PUBLISHER_URL: "http://127.0.0.1:9200",
    SVC_WALRUS_AGGREGATOR_URLS: "http://127.0.0.1:9201",
    SVC_WALRUS_PUBLISHER_TOKEN: `${secret}\nsecond line`,
  });
  assert.equal(problems.length, 11, problems.join("\n"));
  for (
    const start of [
      "SVC_CIPHER=seal needs SVC_CHAIN=sui",
      "SVC_SUI_RPC_URL must be",
      "SVC_PACKAGE_ID must be",
      "SVC_SEAL_KEY_SERVERS entries",
      `SVC_SEAL_KEY_SERVERS lists ${id("1")} twice`,
      'SVC_SEAL_KEY_SERVERS entries are 0x<object id>:<weight 1-999> (entry 4 has the weight "0")',
      "SVC_SEAL_THRESHOLD (2) cannot exceed",
      "SVC_SEAL_SERVER_KEY must be",
      "SVC_WALRUS_OWNER_KEY must be",
      "SVC_WALRUS_EPOCHS must be",
      "SVC_WALRUS_PUBLISHER_TOKEN must be",
    ]
  ) assert.ok(problems.some((p) => p.startsWith(start)), start);
  assert.ok(!problems.join("\n").includes(secret));
});

Deno.test("a suiprivkey is checked whole: checksum, length and scheme; no setting echoes a key", () => {
  const ed25519 = new Ed25519Keypair().getSecretKey();
  const base = {
    SVC_CHAIN: "sui",
    SVC_SUI_RPC_URL: "http://127.0.0.1:9100",
    SVC_PACKAGE_ID: id("a"),
  };
  assert.ok(readConfig({ ...base, SVC_SPONSOR_PRIVATE_KEY: ed25519 }).ok);
  const last = ed25519.at(-1) === "q" ? "p" : "q";
  const secp256k1 = new Secp256k1Keypair().getSecretKey();
  for (
    const [key, expected] of [
      [
        ed25519.slice(0, -1) + last,
        /^SVC_SPONSOR_PRIVATE_KEY is not a valid suiprivkey \(its checksum/,
      ],
      [secp256k1, /^SVC_SPONSOR_PRIVATE_KEY is a Secp256k1 key; only Ed25519 keys are supported$/],
      // Characters a key never holds: said once, not again as a checksum.
      [
        ed25519.toUpperCase().replace("SUIPRIVKEY1", "suiprivkey1"),
        /^SVC_SPONSOR_PRIVATE_KEY must be a suiprivkey1… string/,
      ],
    ] as const
  ) {
    const problems = problemsOf({ ...base, SVC_SPONSOR_PRIVATE_KEY: key });
    assert.equal(problems.length, 1, problems.join("\n"));
    assert.match(problems[0], expected);
    assert.ok(!problems[0].includes(key.slice(11, 30)));
  }
  // A key set in the wrong variable is not repeated, nor a URL's credentials.
  const misplaced = problemsOf({
    ...base,
    SVC_REGISTRY_ID: ed25519,
    SVC_BLOB_STORE: "walrus",
    SVC_WALRUS_PACKAGE_ID: id("c"),
    SVC_WALRUS_PUBLISHER_URL: "http://127.0.0.1:9200",
    SVC_WALRUS_AGGREGATOR_URLS: "htp://user:s3cret@agg.example/?token=abc",
    SVC_WALRUS_OWNER_KEY: "6".repeat(64),
  }).join("\n");
  assert.match(
    misplaced,
    /SVC_REGISTRY_ID must be a Sui object id .*\(got a value of \d+ characters\)/,
  );
  assert.match(
    misplaced,
    /SVC_WALRUS_AGGREGATOR_URLS must list http\(s\) URLs \(got "htp:\/\/…@agg/,
  );
  for (const secret of [ed25519.slice(11), "s3cret", "token=abc"]) {
    assert.ok(!misplaced.includes(secret), secret);
  }
});

Deno.test("the dashboard's port must not be the relayer's (0 takes a free one for each)", () => {
  assert.deepEqual(problemsOf({ SVC_PORT: "8020", SVC_DASHBOARD_PORT: "8020" }), [
    "SVC_DASHBOARD_PORT must differ from SVC_PORT (both are 8020)",
  ]);
  assert.ok(readConfig({ SVC_PORT: "0", SVC_DASHBOARD_PORT: "0" }).ok);
});

Deno.test("the blob store's key must not be the sponsor's", () => {
  const key = "7".repeat(64);
  const problems = problemsOf({
    SVC_CHAIN: "sui",
    SVC_BLOB_STORE: "walrus",
    SVC_SUI_RPC_URL: "http://127.0.0.1:9100",
    SVC_PACKAGE_ID: id("a"),
    SVC_WALRUS_PACKAGE_ID: id("c"),
    SVC_WALRUS_PUBLISHER_URL: "http://127.0.0.1:9200",
    SVC_WALRUS_AGGREGATOR_URLS: "http://127.0.0.1:9201",
    SVC_SPONSOR_PRIVATE_KEY: key,
    SVC_WALRUS_OWNER_KEY: key,
  });
  assert.equal(problems.length, 1);
  assert.match(problems[0], /^SVC_WALRUS_OWNER_KEY must differ from SVC_SPONSOR_PRIVATE_KEY/);
  assert.ok(!problems[0].includes(key));
});

Deno.test("MCP sessions: MCP_MAX_SESSIONS_PER_KEY per key, MCP_MAX_SESSIONS_PER_IP per address", () => {
  const limits = (env: Record<string, string>) => {
    const result = readConfig(env);
    assert.ok(result.ok);
    return [result.config.mcpMaxSessionsPerKey, result.config.mcpMaxSessionsPerIp];
  };
  assert.deepEqual(limits({}), [16, 16]);
  assert.deepEqual(limits({ MCP_MAX_SESSIONS_PER_IP: "4" }), [16, 4]);
  assert.deepEqual(limits({ MCP_MAX_SESSIONS_PER_KEY: "8", MCP_MAX_SESSIONS_PER_IP: "4" }), [8, 4]);
  assert.match(problemsOf({ MCP_MAX_SESSIONS_PER_KEY: "0" })[0], /MCP_MAX_SESSIONS_PER_KEY/);
  assert.match(problemsOf({ MCP_MAX_SESSIONS_PER_IP: "0" })[0], /MCP_MAX_SESSIONS_PER_IP/);
});

Deno.test("a backend's settings are read only when it is selected", () => {
  const unselected = {
    SVC_WALRUS_EPOCHS: "0",
    SVC_SEAL_THRESHOLD: "x",
    OLLAMA_HOST: "ftp://x",
    SVC_LLM_TIMEOUT_MS: "30s",
  };
  assert.ok(readConfig(unselected).ok);
  assert.deepEqual(
    problemsOf({ SVC_LLM: "openai", OPENAI_API_KEY: "k", SVC_LLM_TIMEOUT_MS: "30s" }),
    [
      'SVC_LLM_TIMEOUT_MS must be an integer from 1000 to 600000 (got "30s")',
    ],
  );
  const { SVC_LLM_TIMEOUT_MS: _, ...others } = unselected;
  const problems = problemsOf({ ...others, SVC_EMBEDDER: "ollama" });
  assert.deepEqual(problems, ['OLLAMA_HOST must be an http(s) URL (got "ftp://x")']);
  // What may carry a credential is not shown.
  const keyed = { SVC_EMBEDDER: "ollama", OLLAMA_HOST: "htps://me:pw@node/v1?apikey=s3cret#x" };
  assert.deepEqual(problemsOf(keyed), [
    'OLLAMA_HOST must be an http(s) URL (got "htps://…@node/v1?…")',
  ]);
});

Deno.test("OLLAMA_HOST is completed as Ollama completes it", () => {
  const host = (OLLAMA_HOST: string) => {
    const result = readConfig({ SVC_EMBEDDER: "ollama", OLLAMA_HOST });
    assert.ok(result.ok, result.ok ? "" : result.problems.join("\n"));
    assert.equal(result.config.embedder.kind, "ollama");
    const { host } = result.config.embedder.settings as OllamaSettings;
    assert.equal((result.config.reindex.embedders.ollama as OllamaSettings).host, host);
    return host;
  };
  assert.equal(host("127.0.0.1:11500"), "http://127.0.0.1:11500");
  assert.equal(host("gpu-box"), "http://gpu-box:11434");
  assert.equal(host(":11500"), "http://127.0.0.1:11500");
  assert.equal(host("[::1]"), "http://[::1]:11434");
  assert.equal(host("[::1]:8080/ollama"), "http://[::1]:8080/ollama");
  assert.equal(host("https://ollama.example"), "https://ollama.example");
  // What no scheme can complete is refused as it was given.
  assert.deepEqual(problemsOf({ SVC_EMBEDDER: "ollama", OLLAMA_HOST: "gpu box" }), [
    'OLLAMA_HOST must be an http(s) URL (got "gpu box")',
  ]);
});

Deno.test("an OpenAI key that no header can carry is refused at start, without being shown", () => {
  for (const key of ["sk-…", "sk-abc def", "sk-abc\n"]) {
    assert.deepEqual(problemsOf({ SVC_LLM: "openai", OPENAI_API_KEY: key }), [
      "OPENAI_API_KEY must be the key as the provider issued it: visible ASCII characters, " +
      "without spaces",
    ]);
  }
  assert.ok(readConfig({ SVC_EMBEDDER: "openai", OPENAI_API_KEY: "sk-proj-A_b.1" }).ok);
});

Deno.test("the relayer's names: public URLs as origins, allowed hosts, required audience", () => {
  const result = readConfig({
    SVC_PUBLIC_URL: "https://svc.example/, http://LAN.example:8080",
    SVC_ALLOWED_HOSTS: "svc.example, [fd00::1]:8000",
    SVC_REQUIRE_AUDIENCE: "1",
  });
  assert.ok(result.ok);
  assert.deepEqual(result.config.publicUrls, ["https://svc.example", "http://lan.example:8080"]);
  assert.deepEqual(result.config.allowedHosts, ["svc.example", "[fd00::1]:8000"]);
  assert.equal(result.config.requireAudience, true);

  const defaults = readConfig({});
  assert.ok(defaults.ok);
  assert.deepEqual(defaults.config.publicUrls, []);
  assert.equal(defaults.config.allowedHosts, undefined, "the default is computed at start");
  assert.equal(defaults.config.requireAudience, false);

  assert.deepEqual(
    problemsOf({
      SVC_PUBLIC_URL: "https://svc.example/api,ftp://x",
      SVC_ALLOWED_HOSTS: "https://svc.example",
      SVC_REQUIRE_AUDIENCE: "yes",
    }).map((problem) => problem.split(" ")[0]),
    ["SVC_PUBLIC_URL", "SVC_PUBLIC_URL", "SVC_REQUIRE_AUDIENCE", "SVC_ALLOWED_HOSTS"],
  );
});

Deno.test("URL settings with a user's part are quoted without it; SVC_HOST is an address or name", () => {
  const problems = problemsOf({
    SIDECAR_URL: "http://admin:hunter2secret@localhost",
    SVC_ALLOWED_ORIGINS: "https://bob:topsecretpw@app.example",
    SVC_PUBLIC_URL: "https://user:s3cretpassw0rd@svc.example",
    SVC_ALLOWED_HOSTS: "user:s3cret@svc.example",
    SVC_HOST: "not a host!!",
  });
  assert.equal(problems.length, 5, problems.join("\n"));
  assert.ok(!/hunter2|topsecret|s3cret/.test(problems.join("\n")), problems.join("\n"));
  assert.ok(problems.some((p) => p.startsWith("SVC_HOST must be an IP address or host name")));
  for (
    const host of ["127.0.0.1", "0.0.0.0", "::", "::1", "fd00::1", "svc-1.example", "localhost"]
  ) {
    assert.ok(readConfig({ SVC_HOST: host }).ok, host);
  }
});

Deno.test("an empty setting reads as unset, as in an env file's SVC_VECTOR_STORE=", () => {
  const result = readConfig({
    SVC_VECTOR_STORE: "",
    SVC_LOG_LEVEL: "",
    SVC_STORE: "",
    SVC_CHAIN: "",
  });
  assert.ok(result.ok, result.ok ? "" : result.problems.join("\n"));
  assert.deepEqual(result.config, (readConfig({}) as { config: unknown }).config);
});

Deno.test("the vector store: encrypted by default, importing LanceDB only when unset", () => {
  const store = (env: Record<string, string>) => {
    const result = readConfig(env);
    assert.ok(result.ok);
    return result.config.vectorStore;
  };
  assert.deepEqual(store({}), { kind: "encrypted", memoryMb: 512, importLanceDb: true });
  assert.deepEqual(store({ SVC_VECTOR_STORE: "encrypted", SVC_INDEX_MEMORY_MB: "64" }), {
    kind: "encrypted",
    memoryMb: 64,
    importLanceDb: false,
  });
  assert.deepEqual(store({ SVC_VECTOR_STORE: "lancedb", SVC_INDEX_MEMORY_MB: "x" }), {
    kind: "lancedb",
  });
  assert.deepEqual(store({ SVC_VECTOR_STORE: "memory" }), { kind: "memory" });
  assert.match(problemsOf({ SVC_INDEX_MEMORY_MB: "8" })[0], /^SVC_INDEX_MEMORY_MB must be/);
  assert.match(problemsOf({ SVC_VECTOR_STORE: "lance" })[0], /encrypted, lancedb, memory/);
});

Deno.test("body budgets, body time limit and failed-authentication limit: defaults and bounds", () => {
  const result = readConfig({});
  assert.ok(result.ok);
  const { bodyBudgetMb, bodyBudgetPerAddressMb, bodyTimeoutSeconds, authFailuresPerMinute } =
    result.config;
  assert.deepEqual(
    [bodyBudgetMb, bodyBudgetPerAddressMb, bodyTimeoutSeconds, authFailuresPerMinute],
    [32, 8, 10, 30],
  );
  // A budget must leave room for the largest body (a 4 MiB MCP message in seven eighths of it).
  const problems = problemsOf({
    SVC_BODY_BUDGET_MB: "4",
    SVC_BODY_BUDGET_PER_ADDRESS_MB: "x",
    SVC_BODY_TIMEOUT_SECONDS: "0",
    SVC_AUTH_FAILURES_PER_MIN: "0",
  });
  for (
    const name of [
      "SVC_BODY_BUDGET_MB",
      "SVC_BODY_BUDGET_PER_ADDRESS_MB",
      "SVC_BODY_TIMEOUT_SECONDS",
      "SVC_AUTH_FAILURES_PER_MIN",
    ]
  ) assert.ok(problems.some((p) => p.startsWith(name)), name);
});

Deno.test("the job worker: batches at once and jobs per batch, defaults and bounds", () => {
  const result = readConfig({});
  assert.ok(result.ok);
  assert.deepEqual([result.config.concurrency, result.config.batchSize], [2, 64]);
  const set = readConfig({ SVC_WORKER_CONCURRENCY: "3", SVC_WORKER_BATCH: "16" });
  assert.ok(set.ok);
  assert.deepEqual([set.config.concurrency, set.config.batchSize], [3, 16]);
  const problems = problemsOf({ SVC_WORKER_CONCURRENCY: "0", SVC_WORKER_BATCH: "2000" });
  for (const name of ["SVC_WORKER_CONCURRENCY", "SVC_WORKER_BATCH"]) {
    assert.ok(problems.some((p) => p.startsWith(name)), name);
  }
});

Deno.test("SVC_METRICS_TOKEN: absent by default; a short or spaced one is refused unechoed", () => {
  const result = readConfig({});
  assert.ok(result.ok);
  assert.equal(result.config.metricsToken, undefined);
  const set = readConfig({ SVC_METRICS_TOKEN: "s3cret-metrics-token" });
  assert.ok(set.ok);
  assert.equal(set.config.metricsToken, "s3cret-metrics-token");
  for (const token of ["short-token", "has a space in it!!"]) {
    const problems = problemsOf({ SVC_METRICS_TOKEN: token });
    assert.deepEqual(problems, [
      "SVC_METRICS_TOKEN must be 16 to 256 printable ASCII characters without spaces",
    ]);
  }
});

Deno.test("SVC_EMBEDDER=onnx reads the plugin's settings, SVC_MODELS_DIR included", () => {
  const result = readConfig({ SVC_EMBEDDER: "onnx", SVC_ONNX_MODEL: "intfloat/e5-small-v2" });
  assert.ok(result.ok);
  const { embedder } = result.config;
  assert.equal(embedder.kind, "onnx");
  assert.equal((embedder.settings as OnnxSettings).model, "intfloat/e5-small-v2");
  assert.equal((embedder.settings as OnnxSettings).modelsDir, "./data/models");
  assert.ok(problemsOf({ SVC_EMBEDDER: "onnx" })[0].startsWith("SVC_EMBEDDER=onnx needs"));
});

Deno.test("the access log's retention: 90 days by default, 1 day to 100 years", () => {
  const config = (env: Record<string, string>) => {
    const result = readConfig(env);
    assert.ok(result.ok);
    return result.config;
  };
  assert.equal(config({}).accessLogDays, 90);
  assert.equal(config({ SVC_ACCESS_LOG_DAYS: "7" }).accessLogDays, 7);
  for (const value of ["0", "-1", "seven", "36501"]) {
    const problems = problemsOf({ SVC_ACCESS_LOG_DAYS: value });
    assert.ok(problems.some((p) => p.startsWith("SVC_ACCESS_LOG_DAYS")), value);
  }
});

Deno.test("SVC_EMBEDDER=use: the sentence encoder, with the models directory for its re-ranker", () => {
  const result = readConfig({ SVC_EMBEDDER: "use", SVC_MODELS_DIR: "/var/svc/models" });
  assert.ok(result.ok);
  assert.deepEqual(result.config.embedder, {
    kind: "use",
    settings: { modelsDir: "/var/svc/models" },
    modelsDir: "/var/svc/models",
  });
});

Deno.test("SVC_DATABASE_URL: what postgres cannot read is refused at start, never shown", () => {
  const base = { SVC_STORE: "postgres", SVC_MASTER_KEY: "ab".repeat(32) };
  const cases: [string, RegExp][] = [
    ["postgres://svc:S3cret@127.0.0.1:99999/svc", /cannot be read as a URL/],
    ["postgres://svc:S3cret@127.0.0.1:abc/svc", /cannot be read as a URL/],
    ["postgres://svc:S3cret@[::1/svc", /cannot be read as a URL/],
    ["postgres://svc:pa@ssS3cret#word@127.0.0.1/svc", /has a # \/ or \? in its password/],
    ["postgres://svc:2024/S3cret@db.example/svc", /has a # \/ or \? in its password/],
    ["postgres://svc:/S3cret@db.example/svc", /has a # \/ or \? in its password/],
    ["postgres://svc:12?S3cret@db.example/svc", /has a # \/ or \? in its password/],
    ["postgres://svc%:41S3cret@127.0.0.1/svc", /malformed %-escape/],
    ["postgres://svc:p%zzS3cret@127.0.0.1/svc", /malformed %-escape/],
    ["mysql://svc:S3cret@127.0.0.1/svc", /must start with postgres:\/\//],
    ["postgres://svc:S3cret@db/svc?sslmode=verify-ca", /has sslmode=verify-ca: it takes disable, /],
    ["postgres://svc:S3cret@db/svc?sslmode=bogus", /has sslmode=bogus: it takes /],
    ["postgres://svc:S3cret@db/svc?sslrootcert=/ca.pem", /names sslrootcert, which are not read/],
  ];
  for (const [url, reason] of cases) {
    const problems = problemsOf({ ...base, SVC_DATABASE_URL: url });
    assert.equal(problems.length, 1, url);
    assert.match(problems[0], /^SVC_DATABASE_URL /);
    assert.match(problems[0], reason);
    assert.ok(!problems[0].includes("S3cret"), problems[0]);
  }
  assert.match(problemsOf(base)[0], /^SVC_STORE=postgres needs SVC_DATABASE_URL, such as/);
  const embedded = problemsOf({ SVC_DATABASE_URL: "postgres://svc:secret@db/svc" });
  assert.deepEqual(embedded, [
    "SVC_DATABASE_URL is set but SVC_STORE is not postgres: set SVC_STORE=postgres to keep the " +
    "state in that database, or unset SVC_DATABASE_URL",
  ]);
  for (
    const url of [
      "postgres://svc:p%40ss%23@db.example:5432/svc",
      "postgresql:///svc",
      "postgres://svc@h1:5432,h2:5433/svc?sslmode=require",
    ]
  ) {
    assert.ok(readConfig({ ...base, SVC_DATABASE_URL: url }).ok, url);
  }
});
