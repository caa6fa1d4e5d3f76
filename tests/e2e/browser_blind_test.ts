/**
 * Operator-blind namespaces on the dashboard, in headless Chromium against the real relayer. A
 * device's `BlindMemory` enables a namespace, remembers three texts and lets the owner key in.
 * The memories page opens them in the browser with the wallet's key. It lists them as the client
 * does, erases one with a checked receipt, and lets another device in. A namespace the owner key
 * is not let in to shows the command that lets it in, not its texts, and can still be erased.
 */
import assert from "node:assert/strict";
import type { Browser, Page } from "playwright-core";
import { generateKeyPair, type KeyPair } from "@svc/util/keys";
import { BlindMemory } from "../../src/client/blind.ts";
import { SvcError } from "../../src/errors.ts";
import { LexicalEmbedder } from "../../plugins/lexical_embedder/mod.ts";
import {
  addAgent,
  launch,
  screenshot,
  setUpWallet,
  startStack,
  unfitting,
} from "./browser_fixtures.ts";
import { type RelayerProcess, startRelayer, waitForSidecar } from "../relayer_process.ts";

const TEXTS = [
  { text: "I am vegetarian and never eat fish", tags: ["diet"] },
  { text: "My sister Niamh lives in Galway", tags: ["family", "places"] },
  { text: '<img src=x onerror="document.title=1"> is how <b>markup</b> looks' },
];
const SEALED = "The safe's code is 4711";

/** The memories page's rows: each one's id, text, time and tags, top to bottom. */
function rowsOf(page: Page) {
  return page.getByRole("list", { name: "Memories" }).getByRole("listitem").evaluateAll((items) =>
    items.map((item) => ({
      id: item.getAttribute("data-id"),
      text: item.querySelector(".memory-text")!.textContent,
      time: item.querySelector("time")!.getAttribute("datetime"),
      tags: [...item.querySelectorAll(".tag")].map((tag) => tag.textContent),
    }))
  );
}

Deno.test("browser: the dashboard lists, erases and lets in on operator-blind namespaces", async () => {
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
    const ownerKey = await page.evaluate<string>(
      `import("/assets/wallet.js").then(async (w) => (await w.loadWallet()).publicKey)`,
    );

    const laptop = await generateKeyPair();
    const accountId = await addAgent(page, "laptop", laptop.publicKey);
    const device = (key: KeyPair, namespace: string) =>
      BlindMemory.open({
        baseUrl: relayer!.url,
        privateKey: key.privateKey,
        accountId,
        embedder: new LexicalEmbedder(),
        namespace,
      });
    const memory = await device(laptop, "private");
    await memory.enable();
    for (const item of TEXTS) await memory.remember([item]);
    await memory.letIn(ownerKey);
    // A namespace of more than a page, remembered at once: one time, ordered by id.
    const journal = await device(laptop, "journal");
    await journal.enable();
    await journal.remember([...Array(23).keys()].map((i) => ({ text: `Journal entry ${i}` })));
    await journal.letIn(ownerKey);
    // A namespace the owner key is not let in to.
    const sealed = await device(laptop, "sealed");
    await sealed.enable();
    await sealed.remember([{ text: SEALED }]);

    // The page lists the texts, times and tags as the client holds them, newest first.
    await page.goto(`${stack.dashboard}/memories?namespace=private`);
    await page.getByText("Showing 3, newest first.").waitFor();
    const expected = (await memory.memories()).map(({ id, text, createdAt, tags }) => ({
      id,
      text,
      time: new Date(createdAt).toISOString(),
      tags,
    }));
    assert.deepEqual(await rowsOf(page), expected);
    // Texts are put in the page as text.
    assert.equal(await page.locator("main img, main b").count(), 0);
    assert.equal(await page.title(), "svc — memories in private");
    await page.getByText(/^Operator-blind: the relayer cannot read these memories/).waitFor();
    assert.equal(await page.getByRole("search").count(), 0, "no search: the relayer cannot rank");
    assert.equal(await page.getByRole("button", { name: "Edit" }).count(), 0);
    await page.getByRole("option", { name: "sealed (1, operator-blind)" })
      .waitFor({ state: "attached" });
    const picked = page.getByLabel("Namespace").locator("option:checked");
    assert.equal(await picked.innerText(), "private (3, operator-blind)");
    await page.setViewportSize({ width: 390, height: 844 });
    await page.getByText("Let another device in").click();
    await screenshot(page, "blind-memories-390");
    assert.deepEqual(await unfitting(page), [], "at 390 px");
    const overflow = "document.documentElement.scrollWidth - window.innerWidth";
    assert.equal(await page.evaluate<number>(overflow), 0, "the page overflows at 390 px");

    // Paging: Load more shows the rest, in the client's order.
    await page.goto(`${stack.dashboard}/memories?namespace=journal`);
    await page.getByText("Showing 20, newest first.").waitFor();
    await page.getByRole("button", { name: "Load more" }).click();
    await page.getByText("Showing 23, newest first.").waitFor();
    assert.equal(await page.getByRole("button", { name: "Load more" }).count(), 0);
    assert.deepEqual(
      (await rowsOf(page)).map((row) => row.id),
      (await journal.memories()).map((m) => m.id),
    );
    await page.goto(`${stack.dashboard}/memories?namespace=private`);
    await page.getByText("Showing 3, newest first.").waitFor();

    // Erasing one: a checked receipt, and the client drops it at its next sync.
    const erased = expected[1];
    page.once("dialog", (dialog) => dialog.accept());
    await page.getByRole("listitem").filter({ hasText: erased.text }).getByRole("button", {
      name: "Delete",
    }).click();
    const receipt = page.getByRole("region", { name: "Erase receipt" });
    await receipt.getByText(/signature checks out against the relayer's receipt key/).waitFor();
    assert.match(await receipt.innerText(), new RegExp(`Memory\\s+${erased.id}`));
    assert.match(await receipt.innerText(), /Blob\s+blind-log:\d+/);
    assert.deepEqual((await rowsOf(page)).map((row) => row.id), [expected[0].id, expected[2].id]);
    await memory.sync();
    assert.deepEqual((await memory.memories()).map((m) => m.id), [expected[0].id, expected[2].id]);

    // Letting another device in from the dashboard: it reads what the laptop wrote.
    const phone = await generateKeyPair();
    await addAgent(page, "phone", phone.publicKey);
    await page.getByText("Let another device in").click();
    const field = page.getByLabel("The public key of one of your account's keys");
    await field.fill("not a key");
    await page.getByRole("button", { name: "Let in" }).click();
    await page.locator("#status").filter({ hasText: "64 hex characters" }).waitFor();
    assert.equal(await field.getAttribute("aria-invalid"), "true");
    assert.equal(await field.getAttribute("aria-describedby"), "status");
    // A key of the right form the account does not hold: the relayer refuses it, and the field
    // is marked as what to fix.
    await field.fill("11".repeat(32));
    await page.getByRole("button", { name: "Let in" }).click();
    await page.locator("#status").filter({ hasText: "No such key" }).waitFor();
    assert.equal(await field.getAttribute("aria-invalid"), "true");
    assert.equal(await field.getAttribute("aria-describedby"), "status");
    await field.fill(phone.publicKey);
    await page.getByRole("button", { name: "Let in" }).click();
    await page.locator("#status").filter({ hasText: "Let in: that key can now read" }).waitFor();
    assert.equal(await field.getAttribute("aria-invalid"), null);
    const onPhone = await device(phone, "private");
    assert.deepEqual(
      (await onPhone.memories()).map((m) => m.text),
      [expected[0].text, expected[2].text],
    );

    // The page kept nothing: no text in the browser's storage, no database but the wallet's.
    const stored = await page.evaluate<string>(`(async () =>
      JSON.stringify([{ ...localStorage }, { ...sessionStorage }, await indexedDB.databases()])
    )()`);
    assert.doesNotMatch(stored, /vegetarian|Galway|markup/);
    assert.deepEqual(
      JSON.parse(stored)[2].map((db: { name: string }) => db.name),
      ["svc-wallet"],
    );

    // Not let in: the sentence with the command, no text; the namespace can still be erased.
    await page.goto(`${stack.dashboard}/memories?namespace=sealed`);
    const sentence = page.getByText(/not let in to this operator-blind namespace/);
    await sentence.waitFor();
    assert.match(
      await sentence.innerText(),
      new RegExp(`run: deno task svc blind let-in --namespace=sealed --public-key ${ownerKey}$`),
    );
    assert.doesNotMatch(await page.locator("main").innerText(), /4711/);
    assert.equal(
      await page.getByRole("list", { name: "Memories" }).getByRole("listitem").count(),
      0,
    );
    await screenshot(page, "blind-not-let-in-390");
    page.once("dialog", (dialog) => dialog.accept("sealed"));
    await page.getByRole("button", { name: "Erase the namespace…" }).click();
    await page.locator("#status").filter({
      hasText: 'Erased 1 memory in "sealed"; every receipt\'s signature checks out',
    }).waitFor();
    await assert.rejects(sealed.sync(), (error: SvcError) => error.code === "not_found");

    // The home page marks the operator-blind namespace.
    await page.goto(stack.dashboard);
    const row = page.getByRole("row").filter({ hasText: "private" });
    await row.waitFor();
    assert.match(await row.innerText(), /private\s+operator-blind\s+2/);
    await screenshot(page, "blind-home-390");

    // Erases cut short (the relayer stopped after marking the heads): the pages say so, and the
    // namespace is erased again from there.
    await relayer.stop();
    const kv = await Deno.openKv(`${dataDir}/jobs.kv`);
    for await (const { key, value } of kv.list<{ manifest?: unknown }>({ prefix: [] })) {
      if (value?.manifest) await kv.set(key, { ...value, erasing: true });
    }
    kv.close();
    relayer = await startRelayer(dataDir, {
      SVC_PORT: new URL(relayer.url).port,
      SVC_DASHBOARD_PORT: new URL(stack.dashboard).port,
      SVC_ACCOUNT_CACHE_SECONDS: "1",
    });
    await waitForSidecar(relayer.url);
    await page.goto(stack.dashboard);
    const cut = page.getByRole("row").filter({ hasText: "journal" });
    await cut.waitFor();
    assert.match(await cut.innerText(), /journal\s+operator-blind\s+erase cut short\s+23/);
    await page.goto(`${stack.dashboard}/memories?namespace=private`);
    await page.getByText("This operator-blind namespace's erase was cut short.", { exact: false })
      .first().waitFor();
    await page.getByRole("option", { name: "private (2, operator-blind, erase cut short)" })
      .waitFor({ state: "attached" });
    page.once("dialog", (dialog) => dialog.accept("private"));
    await page.getByRole("button", { name: "Erase the namespace…" }).click();
    await page.locator("#status").filter({ hasText: /Erased \d+ memor(y|ies) in "private"/ })
      .waitFor();
    assert.equal(await picked.innerText(), "private");
    assert.ok(await page.getByRole("button", { name: "Erase the namespace…" }).isHidden());
    await assert.rejects(memory.sync(), (error: SvcError) => error.code === "not_found");
  } finally {
    await browser?.close();
    await relayer?.stop();
    await Deno.remove(dataDir, { recursive: true });
  }
});
