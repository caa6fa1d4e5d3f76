/**
 * The whole sign-in, in headless Chromium (Debian's `chromium` via playwright-core): the real
 * relayer with its sidecar and dashboard, the stdio package spawned as a host spawns it, and
 * a person clicking through the dashboard. Screenshots land in `tests/artifacts/`.
 */
import assert from "node:assert/strict";
import type { Browser } from "playwright-core";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { CredentialsFile } from "../../cli/svc_mcp/credentials.ts";
import { startLogin } from "../../cli/svc_mcp/login.ts";
import {
  addAgent,
  launch,
  screenshot,
  setUpWallet,
  startStack,
  unfitting,
} from "./browser_fixtures.ts";
import { addressOf } from "@svc/util/keys";
import { textOf } from "../mcp_fixtures.ts";
import { connectStdioPackage, type RelayerProcess } from "../relayer_process.ts";

Deno.test("browser: sign in from svc_login, use memory, revoke on the dashboard", async () => {
  const dataDir = await Deno.makeTempDir();
  const home = await Deno.makeTempDir();
  let relayer: RelayerProcess | undefined;
  let browser: Browser | undefined;
  let client: Client | undefined;
  try {
    const stack = await startStack(dataDir);
    relayer = stack.relayer;
    client = await connectStdioPackage([
      "--relayer",
      relayer.url,
      "--web-url",
      stack.dashboard,
      "--label",
      "Browser test agent",
    ], home);
    const login = textOf(await client.callTool({ name: "svc_login", arguments: {} }));
    const url = login.match(/http:\/\/localhost:\d+\/connect\/mcp\?\S+/)![0];
    const code = login.match(/Confirmation code: ([0-9A-F]{4}-[0-9A-F]{4})/)![1];

    browser = await launch();
    const page = await browser.newPage();
    await page.goto(url);
    await setUpWallet(page);
    await page.getByRole("heading", { name: "Connect an agent to your memory" }).waitFor();
    assert.equal(await page.locator("#code").innerText(), code);
    assert.match(await page.locator("main").innerText(), /Browser test agent/);
    await screenshot(page, "consent");
    await page.getByRole("button", { name: "Approve" }).click();
    await page.getByRole("heading", { name: "Connected" }).waitFor();

    const credentialsPath = `${home}/.svc/credentials.json`;
    const stat = await Deno.stat(credentialsPath);
    assert.equal(stat.mode! & 0o777, 0o600);

    const saved = await client.callTool({
      name: "svc_remember",
      arguments: { text: "My favourite mountain is the Matterhorn" },
    });
    assert.match(textOf(saved), /^Saved to memory/);
    const found = await client.callTool({
      name: "svc_recall",
      arguments: { query: "which mountain do I like?" },
    });
    assert.match(textOf(found), /Matterhorn/);

    await page.goto(stack.dashboard);
    const spaces = page.getByRole("region", { name: "Namespaces" });
    await spaces.getByRole("cell", { name: "default" }).waitFor();
    assert.match(await spaces.innerText(), /default\s+1/);
    assert.match(await page.locator("main").innerText(), /Agents\s+1 connected/);
    await screenshot(page, "account");
    // The activity of a filter the relayer refuses: the reason, and no empty table.
    await page.goto(`${stack.dashboard}/activity?op=bogus`);
    await page.getByRole("status").filter({ hasText: "Cannot read the activity" }).waitFor();
    assert.equal(await page.locator("table.activity").isHidden(), true);
    await page.goto(stack.dashboard);
    await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Agents" })
      .click();
    const agents = page.getByRole("region", { name: "Connected agents" });
    await agents.getByRole("cell", { name: "Browser test agent" }).waitFor();
    await page.setViewportSize({ width: 1280, height: 800 });
    await screenshot(page, "agents-1280");
    assert.deepEqual(await unfitting(page), [], "at 1280 px");
    await page.setViewportSize({ width: 390, height: 844 });
    await screenshot(page, "agents-with-key-390");
    assert.deepEqual(await unfitting(page), [], "no button label wraps at 390 px");
    const overflow = "document.documentElement.scrollWidth - window.innerWidth";
    assert.equal(await page.evaluate<number>(overflow), 0, "the agents table overflows at 390 px");
    // Laid out as blocks, its cells keep their column names, to the eye too; each Revoke says
    // whose it is.
    assert.equal(await agents.getByRole("columnheader", { name: "Address" }).count(), 1);
    const before = await page.evaluate<string[]>(`[...document.querySelectorAll(
      "table.agents td[data-label]")].map((cell) => getComputedStyle(cell, "::before").content)`);
    assert.deepEqual(before, ['"Scope: " / ""', '"Address: " / ""', '"Added: " / ""']);
    assert.equal(
      await agents.getByRole("button", { name: "Revoke" }).getAttribute("aria-describedby"),
      await agents.getByRole("cell", { name: "Browser test agent" }).getAttribute("id"),
    );

    // Another key of the same label: each is named with its address where it is asked about.
    const twin = addressOf("cd".repeat(32));
    await addAgent(page, "Browser test agent", "cd".repeat(32));
    await page.reload();
    const twinRow = agents.getByRole("row").filter({ hasText: twin.slice(0, 10) });
    await twinRow.waitFor();
    assert.equal(
      await twinRow.getByRole("button", { name: "Revoke" }).getAttribute("aria-describedby"),
      `key-${twin} key-${twin}-address`,
    );
    let asked = "";
    page.once("dialog", (dialog) => {
      asked = dialog.message();
      dialog.accept();
    });
    await twinRow.getByRole("button", { name: "Revoke" }).click();
    const named = `Browser test agent (${twin.slice(0, 10)}…${twin.slice(-8)})`;
    await page.getByText(`Revoked "${named}".`).waitFor();
    assert.equal(asked, `Revoke "${named}"? That agent loses access at once.`);

    page.once("dialog", (dialog) => dialog.accept());
    await agents.getByRole("button", { name: "Revoke" }).click();
    await page.getByText('Revoked "Browser test agent".').waitFor();
    await agents.getByText("No agent is connected yet").waitFor();

    const refused = await client.callTool({ name: "svc_recall", arguments: { query: "mountain" } });
    assert.equal(refused.isError, true);
    assert.match(
      textOf(refused),
      /^The relayer refused the credentials \(the delegate key is not a key of this account\)/,
    );
    assert.ok((await Deno.stat(credentialsPath)).isFile, "the credentials file is kept");
  } finally {
    await browser?.close();
    await client?.close();
    await relayer?.stop();
    await Deno.remove(dataDir, { recursive: true });
    await Deno.remove(home, { recursive: true });
  }
});

Deno.test("browser: tampered, expired and incomplete sign-in links end on an error page", async () => {
  const dataDir = await Deno.makeTempDir();
  const home = await Deno.makeTempDir();
  let relayer: RelayerProcess | undefined;
  let browser: Browser | undefined;
  const file = CredentialsFile.inHome(home);
  try {
    const stack = await startStack(dataDir);
    relayer = stack.relayer;
    const login = (ttlMs?: number) =>
      startLogin({
        webUrl: stack.dashboard,
        relayerUrl: relayer!.url,
        label: "Tamper test",
        file,
        ttlMs,
      });
    browser = await launch();
    const page = await browser.newPage();

    // A parameter missing: the link is refused before anything happens.
    const incomplete = await login();
    const link = new URL(incomplete.url);
    link.searchParams.delete("state");
    await page.goto(link.href);
    await page.getByRole("heading", { name: "This sign-in link is not valid" }).waitFor();
    assert.match(await page.locator("main").innerText(), /state is missing or malformed/);
    link.searchParams.set("state", "0".repeat(64));
    link.searchParams.set("delegateAddress", "0x" + "1".repeat(64));
    await page.goto(link.href);
    await page.getByText("delegateAddress does not match publicKey").waitFor();
    await screenshot(page, "invalid-link");
    await incomplete.close();

    // A link whose state was changed, as a link sent by someone else would be: no agent
    // answers for it, and nothing is added to the account.
    // Said when the link is opened, before the wallet and the consent form.
    await page.goto(stack.dashboard);
    await setUpWallet(page);
    await page.getByRole("region", { name: "Your account", exact: true }).waitFor();
    const tampered = await login();
    const wrong = new URL(tampered.url);
    wrong.searchParams.set("state", "f".repeat(64));
    await page.goto(wrong.href);
    await page.getByRole("heading", { name: "No agent is waiting for this sign-in" }).waitFor();
    assert.equal(await page.getByRole("button", { name: "Approve" }).count(), 0);
    await screenshot(page, "no-agent-waiting");
    await tampered.close();

    // A link whose label was changed: the agent's proof covers the whole link, so it fails.
    const relabelled = await login();
    const renamed = new URL(relabelled.url);
    renamed.searchParams.set("label", "Evil agent");
    await page.goto(renamed.href);
    await page.getByRole("heading", { name: "No agent is waiting for this sign-in" }).waitFor();
    await relabelled.close();

    // An agent of 0.1.0, whose proof covers the public key alone: told apart, and refused.
    const older = await login();
    const olderLink = new URL(older.url);
    const listener = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, async (req) => {
      const cors = {
        "access-control-allow-origin": stack.dashboard,
        "access-control-allow-methods": "POST",
        "access-control-allow-headers": "content-type",
        "access-control-allow-private-network": "true",
      };
      if (req.method === "OPTIONS") return new Response(null, { status: 204, headers: cors });
      const { nonce } = await req.json();
      const key = await crypto.subtle.importKey(
        "raw",
        Uint8Array.fromHex(olderLink.searchParams.get("state")!),
        { name: "HMAC", hash: "SHA-256" },
        false,
        ["sign"],
      );
      const message = `svc-login-verify:${nonce}:${olderLink.searchParams.get("publicKey")}`;
      const proof = new Uint8Array(
        await crypto.subtle.sign("HMAC", key, new TextEncoder().encode(message)),
      ).toHex();
      return Response.json({ proof }, { headers: cors });
    });
    olderLink.searchParams.set("port", String(listener.addr.port));
    await page.goto(olderLink.href);
    await page.getByRole("heading", { name: "This agent's svc-mcp is older than the dashboard" })
      .waitFor();
    await listener.shutdown();
    await older.close();

    // Expired: the agent stopped waiting before the approval.
    const expired = await login(300);
    await assert.rejects(expired.done, /expired/);
    await page.goto(expired.url);
    await page.getByRole("heading", { name: "No agent is waiting for this sign-in" }).waitFor();
    const owner = await page.evaluate(async () => {
      const { loadWallet } = await import("/assets/wallet.js");
      return (await loadWallet()).address;
    });
    const { account } = await (await fetch(`${stack.dashboard}/api/account?owner=${owner}`)).json();
    assert.deepEqual(account.delegate_keys, [], "no key was added for refused links");

    // The hand-over fails once after the key was added: the page offers a retry that works.
    const flaky = await login();
    await page.route("http://127.0.0.1:*/callback", (route) => route.abort());
    await page.goto(flaky.url);
    await page.getByRole("button", { name: "Approve" }).click();
    await page.getByRole("heading", { name: "The agent did not receive the approval" }).waitFor();
    await screenshot(page, "callback-failed");
    await page.unroute("http://127.0.0.1:*/callback");
    await page.getByRole("button", { name: "Retry" }).click();
    await page.getByRole("heading", { name: "Connected" }).waitFor();
    const saved = await flaky.done;
    assert.deepEqual(await file.load(), { kind: "ok", credentials: saved });

    // The wallet's backup restores the same account in another browser profile.
    await page.goto(stack.dashboard);
    await page.getByRole("button", { name: "Show backup" }).click();
    assert.match(await page.getByRole("note").innerText(), /Anyone holding this backup/);
    assert.doesNotMatch(await page.getByLabel("Wallet backup").innerText(), /svc-owner-key/);
    const reveal = page.getByRole("button", { name: "Reveal key" });
    // The button names the key it reveals; no id on the page is used twice.
    const controlled = await reveal.getAttribute("aria-controls");
    assert.equal(await page.locator(`#${controlled}`).getAttribute("aria-label"), "Wallet backup");
    const ids = await page.locator("[id]").evaluateAll((nodes) => nodes.map((n) => n.id));
    assert.deepEqual(ids, [...new Set(ids)]);
    await reveal.click();
    const backup = await page.getByLabel("Wallet backup").innerText();
    assert.equal(JSON.parse(backup).address, owner);
    const other = await browser.newContext();
    const fresh = await other.newPage();
    await fresh.goto(stack.dashboard);
    await fresh.getByText("Restore from a backup").click();
    const pasted = fresh.getByLabel("Paste the backup you exported earlier");
    await pasted.fill("not a backup");
    await fresh.getByRole("button", { name: "Restore wallet" }).click();
    await fresh.getByRole("status").filter({ hasText: /must hold a private key/ }).waitFor();
    await pasted.fill(backup);
    await fresh.getByRole("button", { name: "Restore wallet" }).click();
    await fresh.getByRole("heading", { name: "Your account", exact: true }).waitFor();
    assert.equal(await fresh.getByRole("status").innerText(), "", "the failed try's error stayed");
    assert.match(await fresh.locator("main").innerText(), new RegExp(owner));
    await other.close();
  } finally {
    await browser?.close();
    await relayer?.stop();
    await Deno.remove(dataDir, { recursive: true });
    await Deno.remove(home, { recursive: true });
  }
});
