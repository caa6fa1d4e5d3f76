/**
 * The dashboard's activity page in headless Chromium, against the real relayer: the owner key
 * signs in the browser; the page lists the access log newest first and filters it by agent,
 * operation and namespace; from the memories page, "Who read this" shows which agents read a
 * memory, and each memory names the agent that remembered it.
 */
import assert from "node:assert/strict";
import type { Browser } from "playwright-core";
import { addressOf, generateKeyPair } from "@svc/util/keys";
import { SvcClient } from "../../src/client/mod.ts";
import {
  addAgent,
  launch,
  screenshot,
  setUpWallet,
  startStack,
  unfitting,
} from "./browser_fixtures.ts";
import { jobIdOf, type RelayerProcess } from "../relayer_process.ts";

Deno.test("browser: the activity page lists and filters the access log; who read a memory", async () => {
  const dataDir = await Deno.makeTempDir();
  let relayer: RelayerProcess | undefined;
  let browser: Browser | undefined;
  try {
    const stack = await startStack(dataDir);
    relayer = stack.relayer;
    browser = await launch();
    const page = await browser.newPage();
    await page.goto(stack.dashboard);
    await setUpWallet(page);
    await page.getByRole("region", { name: "Your account", exact: true }).waitFor();

    const writerKey = await generateKeyPair();
    const readerKey = await generateKeyPair();
    const accountId = await addAgent(page, "writer agent", writerKey.publicKey);
    await addAgent(page, "reader agent", readerKey.publicKey);
    // Another agent signed in under the same label (the same machine, twice).
    const twinKey = await generateKeyPair();
    await addAgent(page, "reader agent", twinKey.publicKey);
    const clientOf = (privateKey: string) =>
      SvcClient.create({ baseUrl: relayer!.url, privateKey, accountId });
    const writer = await clientOf(writerKey.privateKey);
    const reader = await clientOf(readerKey.privateKey);
    const dog = jobIdOf(await writer.remember("My dog Rex loves the beach", { namespace: "pets" }));
    const cat = jobIdOf(await writer.remember("My cat sleeps all day", { namespace: "pets" }));
    const work = jobIdOf(await writer.remember("I work on Tuesdays", { namespace: "work" }));
    for (const id of [dog, cat, work]) assert.equal((await writer.waitForJob(id)).status, "done");
    await reader.get(dog);
    await reader.recall("who loves the beach?", { namespace: "pets", limit: 1 });

    // The whole log, newest first.
    await page.getByRole("link", { name: "Activity" }).click();
    await page.waitForURL(/\/activity$/);
    const table = page.getByRole("table", { name: "Access log" });
    await page.getByText("Showing 5 entries, newest first.").waitFor();
    const rows = table.locator("tbody tr");
    assert.equal(await rows.count(), 5);
    // Its scrolling box is a named region the keyboard can reach (to scroll it sideways).
    const box = page.getByRole("region", { name: "Access log entries" });
    assert.equal(await box.getAttribute("tabindex"), "0");
    // The two "reader agent"s are told apart by address, in the table as in the filter.
    const address = addressOf(readerKey.publicKey);
    const readerName = `reader agent (${address.slice(0, 10)}…${address.slice(-8)})`;
    const cellsOf = () =>
      rows.evaluateAll((trs) => trs.map((tr) => [1, 2, 3].map((i) => tr.children[i].textContent)));
    assert.deepEqual(await cellsOf(), [
      ["recall", readerName, "pets"],
      ["get", readerName, "pets"],
      ["remember", "writer agent", "work"],
      ["remember", "writer agent", "pets"],
      ["remember", "writer agent", "pets"],
    ]);
    const text = await page.locator("main").innerText();
    assert.doesNotMatch(text, /who loves the beach/, "the query is never shown");
    await page.setViewportSize({ width: 1280, height: 800 });
    await screenshot(page, "activity-1280");
    assert.deepEqual(await unfitting(page), [], "at 1280 px");

    // Filter by agent (the two "reader agent"s told apart), then operation, then namespace.
    const agentOptions = await page.getByLabel("Agent").locator("option").allInnerTexts();
    assert.ok(agentOptions.includes(readerName), agentOptions.join(", "));
    assert.equal(new Set(agentOptions).size, agentOptions.length);
    await page.getByLabel("Agent").selectOption(addressOf(readerKey.publicKey));
    await page.waitForURL(/\/activity\?key=0x[0-9a-f]{64}$/);
    await page.getByText("Showing 2 entries, newest first.").waitFor();
    await page.getByLabel("Operation").selectOption("get");
    await page.waitForURL(/op=get/);
    await page.getByText("Showing 1 entry, newest first.").waitFor();
    assert.deepEqual(await cellsOf(), [["get", readerName, "pets"]]);
    // The keyboard steps through the options without leaving the page; Enter picks.
    const operation = page.getByLabel("Operation");
    await operation.focus();
    await page.keyboard.press("ArrowDown");
    const next = await operation.inputValue();
    assert.notEqual(next, "get");
    await page.keyboard.press("ArrowDown");
    await page.keyboard.press("ArrowUp");
    await new Promise((resolve) => setTimeout(resolve, 500));
    assert.match(page.url(), /op=get$/, "stepping did not navigate");
    await page.keyboard.press("Enter");
    await page.waitForURL(new RegExp(`op=${next}$`));
    await page.goto(`${stack.dashboard}/activity`);
    await page.getByText("Showing 5 entries, newest first.").waitFor();
    await page.getByRole("option", { name: "work" }).waitFor({ state: "attached" });
    await page.getByLabel("Namespace").selectOption("work");
    await page.waitForURL(/namespace=work/);
    await page.getByText("Showing 1 entry, newest first.").waitFor();
    assert.deepEqual(await cellsOf(), [["remember", "writer agent", "work"]]);
    assert.equal(await page.getByLabel("Namespace").inputValue(), "work");

    // From the memories page: who remembered a memory, and who read it.
    await page.goto(`${stack.dashboard}/memories?namespace=pets`);
    const list = page.getByRole("list", { name: "Memories" });
    await page.getByText("Showing 2, newest first.").waitFor();
    const rex = list.getByRole("listitem").filter({ hasText: "Rex" });
    assert.match(await rex.innerText(), /by writer agent/);
    await rex.getByRole("link", { name: "Who read this" }).click();
    await page.waitForURL(new RegExp(`/activity\\?memory=${dog}$`));
    await page.getByRole("heading", { name: "Who read this memory" }).waitFor();
    // The memories page listed it with the owner key: that read is in the log too.
    await page.getByText(`Read by: You (owner key), ${readerName}.`).waitFor();
    assert.deepEqual(await cellsOf(), [
      ["list", "You (owner key)", "pets"],
      ["recall", readerName, "pets"],
      ["get", readerName, "pets"],
      ["remember", "writer agent", "pets"],
    ]);
    await page.setViewportSize({ width: 390, height: 844 });
    await screenshot(page, "activity-memory-390");
    const overflow = "document.documentElement.scrollWidth - window.innerWidth";
    assert.equal(await page.evaluate<number>(overflow), 0, "the page overflows at 390 px");

    // A memory nobody read (the memories page listed only the other namespace).
    await page.goto(`${stack.dashboard}/activity?memory=${work}`);
    await page.getByText("No agent has read this memory (in the log kept).").waitFor();

    // A revoked agent stays in the Agent filter (named as the log names it), and the filter in
    // the URL is the one shown, whatever key it names.
    await page.evaluate(`(async () => {
      const w = await import("/assets/wallet.js");
      await w.transact(await w.loadWallet(), {
        kind: "remove_delegate_key",
        account_id: ${JSON.stringify(accountId)},
        public_key: ${JSON.stringify(readerKey.publicKey)},
      });
    })()`);
    await page.goto(`${stack.dashboard}/activity`);
    await page.getByText(/^Showing \d+ entries, newest first\.$/).waitFor();
    const revoked = `${readerName} (removed)`;
    await page.getByRole("option", { name: revoked }).waitFor({ state: "attached" });
    await page.getByLabel("Agent").selectOption({ label: revoked });
    await page.waitForURL(new RegExp(`key=${address}$`));
    await page.getByText("Showing 2 entries, newest first.").waitFor();
    assert.equal(await page.getByLabel("Agent").inputValue(), address);
    const stranger = `0x${"0".repeat(64)}`;
    await page.goto(`${stack.dashboard}/activity?key=${stranger}`);
    await page.getByText("No activity matches.").waitFor();
    assert.equal(await page.getByLabel("Agent").inputValue(), stranger);
  } finally {
    await browser?.close();
    await relayer?.stop();
    await Deno.remove(dataDir, { recursive: true });
  }
});
