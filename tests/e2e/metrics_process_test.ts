/**
 * The real relayer (`main.ts`) as its own process: `SVC_METRICS_TOKEN` reaches `/metrics`, the
 * sidecar it supervises shows in the metrics, `/openapi.json` is served, and the public routes
 * answer HEAD.
 */
import assert from "node:assert/strict";
import { startRelayer, waitForSidecar } from "../relayer_process.ts";

Deno.test("e2e: /metrics asks for SVC_METRICS_TOKEN, shows the sidecar; /openapi.json is served", async () => {
  const dataDir = await Deno.makeTempDir({ prefix: "svc-metrics-e2e-" });
  const token = "e2e-metrics-token-4242";
  try {
    await using relayer = await startRelayer(dataDir, { SVC_METRICS_TOKEN: token });
    await waitForSidecar(relayer.url);

    const refused = await fetch(`${relayer.url}/metrics`);
    assert.equal(refused.status, 401);
    assert.equal((await refused.json()).reason, "bad_token");

    const res = await fetch(`${relayer.url}/metrics`, {
      headers: { authorization: `Bearer ${token}` },
    });
    assert.equal(res.status, 200);
    const text = await res.text();
    assert.match(text, /^svc_sidecar_up 1$/m);
    assert.match(text, /^svc_mcp_sessions 0$/m);
    assert.match(
      text,
      /^svc_http_requests_total\{method="GET",route="\/health",status="200"\} \d+$/m,
    );
    assert.match(text, /^svc_jobs_unfinished 0$/m);

    // Monitors that ask with HEAD get the status and headers, without a body.
    for (
      const [path, status] of [["/health", 200], ["/metrics", 200], ["/api/whoami", 405]] as const
    ) {
      const head = await fetch(`${relayer.url}${path}`, {
        method: "HEAD",
        headers: { authorization: `Bearer ${token}` },
      });
      assert.equal(head.status, status, path);
      assert.equal(await head.text(), "", path);
    }

    const document = await (await fetch(`${relayer.url}/openapi.json`)).json();
    assert.equal(document.openapi, "3.1.0");
    assert.ok(document.paths["/api/recall"].post.requestBody);
    assert.ok(!relayer.log().includes(token), "the token is never logged");
  } finally {
    await Deno.remove(dataDir, { recursive: true });
  }
});
