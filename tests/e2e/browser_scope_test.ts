/**
 * A scoped sign-in in headless Chromium: `svc-mcp --scope … --expires …` asks for a scope, the
 * consent page shows it plainly, the person narrows it, and the key added to the ledger, the
 * agent's credentials and what the relayer lets the agent do all follow the narrowed scope;
 * once expired, the agents page lists the key apart.
 */
import assert from "node:assert/strict";
import type { Browser } from "playwright-core";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { launch, screenshot, setUpWallet, startStack } from "./browser_fixtures.ts";
import { CredentialsFile } from "../../cli/svc_mcp/credentials.ts";
import { startLogin } from "../../cli/svc_mcp/login.ts";
import { textOf } from "../mcp_fixtures.ts";
import { connectStdioPackage, type RelayerProcess } from "../relayer_process.ts";

const DAY = 86_400_000;

Deno.test("browser: the consent page shows the requested scope; the narrowed one is what the key gets", async () => {
  const dataDir = await Deno.makeTempDir();
  const home = await Deno.makeTempDir();
  let relayer: RelayerProcess | undefined;
  let browser: Browser | undefined;
  let client: Client | undefined;
  try {
    const stack = await startStack(dataDir);
    relayer = stack.relayer;
    client = await connectStdioPackage([
      ...["--relayer", relayer.url, "--web-url", stack.dashboard, "--label", "Scoped agent"],
      ...["--scope", "read,write:work,notes", "--expires", "30d"],
    ], home);
    const login = textOf(await client.callTool({ name: "svc_login", arguments: {} }));
    assert.match(
      login,
      /asks for: operations read, write; namespaces notes, work, expiring after 30d/,
    );
    const url = new URL(login.match(/http:\/\/localhost:\d+\/connect\/mcp\?\S+/)![0]);
    assert.equal(url.searchParams.get("operations"), "read,write");
    assert.deepEqual(url.searchParams.getAll("namespace"), ["notes", "work"]);

    browser = await launch();
    // A zone whose date differs from UTC's now (11 hours behind before 11:00 UTC, else 14
    // ahead), so that the expiry date picker's days are the browser's, not UTC's.
    const timezoneId = new Date().getUTCHours() < 11 ? "Pacific/Pago_Pago" : "Pacific/Kiritimati";
    const page = await browser.newPage({ timezoneId });
    const localDate = (ms: number) =>
      new Intl.DateTimeFormat("en-CA", { timeZone: timezoneId }).format(new Date(ms));

    // A link asking for an operation that does not exist is refused.
    const bad = new URL(url);
    bad.searchParams.set("operations", "read,fly");
    await page.goto(bad.href);
    await page.getByRole("heading", { name: "This sign-in link is not valid" }).waitFor();
    assert.match(await page.locator("main").innerText(), /operations must be some of/);

    await page.goto(url.href);
    await setUpWallet(page);
    await page.getByRole("heading", { name: "Connect an agent to your memory" }).waitFor();
    const asked = await page.getByRole("list", { name: "What it asks for" }).innerText();
    assert.match(asked, /Read and search your memories/);
    assert.match(asked, /Save, correct and restore memories/);
    assert.doesNotMatch(asked, /Erase memories/);
    assert.match(asked, /Only in namespaces notes, work/);
    assert.match(asked, /For 30 days after you approve/);
    // Three groups, each named by its heading: what, where, for how long.
    const choices = page.getByRole("group", { name: "Allow it to", exact: true });
    const where = page.getByRole("group", { name: "Where", exact: true });
    const howLong = page.getByRole("group", { name: "For how long", exact: true });
    assert.equal(await choices.getByRole("checkbox", { name: "Erase memories" }).count(), 0);
    await screenshot(page, "consent-scope");

    // What is to fix is marked as such, and described by what the summary says.
    const picked = page.locator("#scope-summary");
    const reading = choices.getByRole("checkbox", { name: "Read and search your memories" });
    const saving = choices.getByRole("checkbox", { name: "Save, correct and restore memories" });
    await reading.uncheck();
    await saving.uncheck();
    assert.equal(await picked.innerText(), "Allow at least one thing, or press Deny.");
    assert.equal(await reading.getAttribute("aria-invalid"), "true");
    assert.equal(await reading.getAttribute("aria-describedby"), "scope-summary");
    await reading.check();
    assert.equal(await reading.getAttribute("aria-invalid"), null);
    assert.equal(await saving.getAttribute("aria-invalid"), null);

    // Until a date: from tomorrow to the last day asked for, in the browser's days.
    const openedAt = Date.now();
    const expiry = howLong.getByRole("combobox", { name: "For how long", exact: true });
    await expiry.selectOption({ label: "Until a date…" });
    const picker = howLong.getByLabel(/^Expiry date/);
    assert.equal(await picker.getAttribute("aria-invalid"), "true");
    assert.equal(await picker.getAttribute("min"), localDate(openedAt + DAY));
    assert.equal(await picker.getAttribute("max"), localDate(openedAt + 30 * DAY));
    await picker.fill(localDate(openedAt + 30 * DAY));
    assert.equal(await picked.getAttribute("data-state"), "ok", await picked.innerText());
    assert.equal(await picker.getAttribute("aria-invalid"), null);

    // Narrow it: reading only, in work only, for 7 days.
    await where.getByRole("checkbox", { name: "notes" }).uncheck();
    await expiry.selectOption({ label: "For 7 days" });
    const summary = await page.locator("#scope-summary").innerText();
    assert.match(summary, /read and search your memories; only in namespace work; until /);
    assert.doesNotMatch(summary, /save/i);
    await page.setViewportSize({ width: 390, height: 844 });
    const overflow = "document.documentElement.scrollWidth - window.innerWidth";
    assert.equal(await page.evaluate<number>(overflow), 0, "the consent page overflows at 390 px");
    const approvedAt = Date.now();
    await page.getByRole("button", { name: "Approve" }).click();
    await page.getByRole("heading", { name: "Connected" }).waitFor();

    // The ledger holds the narrowed scope, and so do the agent's credentials.
    const credentials = JSON.parse(await Deno.readTextFile(`${home}/.svc/credentials.json`));
    assert.deepEqual(
      { ...credentials.scope, expires_at: undefined },
      { namespaces: ["work"], operations: ["read"], expires_at: undefined },
    );
    const expiresAt = Date.parse(credentials.scope.expires_at);
    assert.ok(
      Math.abs(expiresAt - (approvedAt + 7 * DAY)) < DAY / 24,
      credentials.scope.expires_at,
    );
    const account = await (await fetch(
      `${stack.dashboard}/api/account?owner=${credentials.walletAddress}`,
    )).json();
    const [key] = account.account.delegate_keys;
    assert.deepEqual([key.namespaces, key.operations, key.expires_at], [
      ["work"],
      ["read"],
      credentials.scope.expires_at,
    ]);

    // The relayer holds the agent to it: it recalls in work, by default, and nothing else.
    const recalled = await client.callTool({ name: "svc_recall", arguments: { query: "bees" } });
    assert.equal(textOf(recalled), "No matching memories found");
    const saved = await client.callTool({
      name: "svc_remember",
      arguments: { text: "I keep bees" },
    });
    assert.equal(saved.isError, true);
    assert.match(textOf(saved), /missing scope: write/);
    const notes = await client.callTool({ name: "svc_list", arguments: { namespace: "notes" } });
    assert.match(textOf(notes), /missing scope: namespace "notes"/);

    // The agents page lists the key's scope.
    await page.setViewportSize({ width: 1000, height: 800 });
    await page.goto(`${stack.dashboard}/agents`);
    const agents = page.getByRole("region", { name: "Connected agents" });
    await agents.getByRole("cell", { name: "Scoped agent" }).waitFor();
    assert.match(await agents.innerText(), /read · namespace work · expires /);
    await screenshot(page, "agents-scope");

    // A sign-in that asks for everything may be limited to some namespaces.
    const everything = await startLogin({
      webUrl: stack.dashboard,
      relayerUrl: relayer.url,
      label: "Picked namespaces",
      file: CredentialsFile.inHome(`${home}/second`),
    });
    await page.goto(everything.url);
    const choose = page.getByRole("group", { name: "Where", exact: true });
    await choose.getByRole("radio", { name: "Only these namespaces:" }).check();
    // (The account has no memories yet, so no namespace to tick: they are typed.)
    const typed = choose.getByRole("textbox", { name: "Other namespaces, comma-separated" });
    // Typing is summed up once it pauses, not at every key (a live region reads each out).
    const atOnce = await page.evaluate<string>(`(() => {
      const input = document.querySelector("#scope-more-namespaces");
      input.value = "tr";
      input.dispatchEvent(new Event("input", { bubbles: true }));
      return document.querySelector("#scope-summary").textContent;
    })()`);
    assert.equal(atOnce, "Choose at least one namespace.");
    await page.locator("#scope-summary").filter({ hasText: "only in namespace tr;" }).waitFor();
    await typed.fill("travel, diary,work");
    await page.getByRole("checkbox", { name: "Erase memories" }).uncheck();
    await page.getByRole("button", { name: "Approve" }).click();
    await page.getByRole("heading", { name: "Connected" }).waitFor();
    const second = await everything.done;
    assert.deepEqual(second.scope, {
      namespaces: ["diary", "travel", "work"],
      operations: ["read", "write", "audit"],
      expires_at: null,
    });

    // Eight days on, the 7-day key is listed apart as expired, with the other still connected.
    await page.clock.install({ time: Date.now() + 8 * DAY });
    await page.goto(`${stack.dashboard}/agents`);
    const expired = page.getByRole("region", { name: "Expired keys" });
    await expired.getByRole("cell", { name: "Scoped agent" }).waitFor();
    assert.match(await expired.innerText(), /read · namespace work · expired /);
    const connected = await page.getByRole("region", { name: "Connected agents" }).innerText();
    assert.match(connected, /Picked namespaces/);
    assert.doesNotMatch(connected, /Scoped agent/);
    await expired.getByRole("button", { name: "Remove" }).waitFor();
  } finally {
    await browser?.close();
    await client?.close();
    await relayer?.stop();
    await Deno.remove(dataDir, { recursive: true });
    await Deno.remove(home, { recursive: true });
  }
});
