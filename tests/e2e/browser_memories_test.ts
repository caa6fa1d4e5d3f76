/**
 * The dashboard's memories page in headless Chromium, against the real relayer: the owner key
 * signs in the browser; the page lists a namespace page by page, searches it, and erases a
 * memory after a confirmation, showing the receipt checked against the relayer's key.
 */
import assert from "node:assert/strict";
import type { Browser } from "playwright-core";
import { generateKeyPair } from "@svc/util/keys";
import { SvcClient, verifyReceipt } from "../../src/client/mod.ts";
import { SvcError } from "../../src/errors.ts";
import { MAX_TEXT_BYTES } from "../../src/text_limits.ts";
import { addAgent, launch, screenshot, setUpWallet, startStack } from "./browser_fixtures.ts";
import { jobIdOf, type RelayerProcess } from "../relayer_process.ts";

Deno.test("browser: the memories page lists, pages, searches and erases with a receipt", async () => {
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

    // An agent's key, added by the wallet as the consent page adds one.
    const agent = await generateKeyPair();
    const accountId = await addAgent(page, "test agent", agent.publicKey);
    // A key that expires at once is not counted among the connected agents.
    const brief = await generateKeyPair();
    await page.evaluate(`(async () => {
      const w = await import("/assets/wallet.js");
      await w.transact(await w.loadWallet(), {
        kind: "add_delegate_key",
        account_id: ${JSON.stringify(accountId)},
        public_key: ${JSON.stringify(brief.publicKey)},
        label: "brief agent",
        expires_at: new Date(Date.now() + 1500).toISOString(),
      });
    })()`);
    await new Promise((resolve) => setTimeout(resolve, 2000));
    await page.reload();
    assert.match(
      await page.getByRole("region", { name: "Your account", exact: true }).innerText(),
      /Agents\s+1 connected/,
    );
    const client = await SvcClient.create({
      baseUrl: relayer.url,
      privateKey: agent.privateKey,
      accountId,
    });
    const jobs: string[] = [];
    for (let i = 0; i < 23; i++) {
      jobs.push(jobIdOf(
        await client.remember(`Journal entry ${i}: a quiet day`, {
          namespace: "journal",
        }),
      ));
    }
    jobs.push(jobIdOf(
      await client.remember("My dog Rex loves the beach", {
        namespace: "journal",
        tags: ["pets"],
      }),
    ));
    jobs.push(jobIdOf(
      await client.remember("I keep my passport in the blue drawer", {
        namespace: "journal",
      }),
    ));
    for (const id of jobs) assert.equal((await client.waitForJob(id)).status, "done");
    const [dogId, passportId] = jobs.slice(-2);

    // From the home page's namespaces to the namespace's memories.
    await page.reload();
    const spaces = page.getByRole("region", { name: "Namespaces" });
    await spaces.getByRole("link", { name: "journal" }).click();
    await page.waitForURL(/\/memories\?namespace=journal$/);
    const list = page.getByRole("list", { name: "Memories" });
    await page.getByText("Showing 20, newest first.").waitFor();
    const items = list.getByRole("listitem");
    assert.equal(await items.count(), 20);
    assert.match(await items.nth(0).innerText(), /I keep my passport in the blue drawer/);
    assert.match(await items.nth(1).innerText(), /My dog Rex loves the beach\s+\S.*\s+pets/s);
    await page.getByRole("button", { name: "Load more" }).press("Enter");
    await page.getByText("Showing 25, newest first.").waitFor();
    assert.equal(await page.getByRole("button", { name: "Load more" }).count(), 0);
    // The keyboard's place, where Load more was: the first memory it loaded.
    const focused = "document.activeElement.closest('li')?.dataset.id ?? ''";
    assert.equal(
      await page.evaluate<string>(focused),
      await items.nth(20).getAttribute("data-id"),
    );
    await screenshot(page, "memories");
    // Back from another page shows as much as was loaded.
    await page.goto(`${stack.dashboard}/activity`);
    await page.goBack();
    await page.getByText("Showing 25, newest first.").waitFor();

    // A dashboard that cannot be reached is named as such.
    await page.route("**/api/recall", (route) => route.abort());
    await page.getByLabel("Search memories by meaning").fill("anything");
    await page.getByRole("button", { name: "Search" }).click();
    await page.locator("#status").filter({ hasText: /^Cannot reach svc at http/ }).waitFor();
    await page.unroute("**/api/recall");

    // Search by meaning.
    await page.getByLabel("Search memories by meaning").fill("where is my passport?");
    await page.getByRole("button", { name: "Search" }).click();
    await page.getByText(/best match(es)? for "where is my passport\?"/).waitFor();
    assert.match(await items.nth(0).innerText(), /passport in the blue drawer[\s\S]*score 0\.\d\d/);
    // Back from another page shows the search again; the query is in no URL.
    await page.goto(`${stack.dashboard}/activity`);
    await page.goBack();
    await page.getByText(/best match(es)? for "where is my passport\?"/).waitFor();
    assert.equal(
      await page.getByLabel("Search memories by meaning").inputValue(),
      "where is my passport?",
    );
    assert.doesNotMatch(page.url(), /passport/);

    // Dismissing the confirmation erases nothing.
    const passport = list.getByRole("listitem").filter({ hasText: "passport" });
    page.once("dialog", (dialog) => dialog.dismiss());
    await passport.getByRole("button", { name: "Delete" }).click();
    await passport.getByRole("button", { name: "Delete" }).waitFor();
    assert.equal((await client.get(passportId)).text, "I keep my passport in the blue drawer");

    let question = "";
    page.once("dialog", (dialog) => {
      question = dialog.message();
      dialog.accept();
    });
    await passport.getByRole("button", { name: "Delete" }).click();
    const receipt = page.getByRole("region", { name: "Erase receipt" });
    await receipt.getByText(/signature checks out against the relayer's receipt key/).waitFor();
    // Announced once, by the status line; the receipt's own text is not a second status.
    assert.equal(
      await page.locator("#status").innerText(),
      `Erased memory ${passportId}; its receipt checks out.`,
    );
    assert.equal(await receipt.getByRole("status").count(), 0);
    assert.match(question, /^Erase "I keep my passport in the blue drawer"\?/);
    const shown = await receipt.innerText();
    assert.match(shown, new RegExp(`Memory\\s+${passportId}`));
    // The receipt, at the top of the page, takes the focus from the row that went.
    assert.equal(await page.evaluate("document.activeElement.textContent"), "Erase receipt");
    await screenshot(page, "memories-receipt");
    await page.setViewportSize({ width: 390, height: 844 });
    await screenshot(page, "memories-receipt-390");
    const overflow = "document.documentElement.scrollWidth - window.innerWidth";
    assert.equal(await page.evaluate<number>(overflow), 0, "the page overflows at 390 px");

    // The receipt on the page is the relayer's, and the memory is gone everywhere.
    const fields = Object.fromEntries(
      ["Memory", "Owner", "Blob", "Erased at", "Signature", "Receipt key"].map((name) => [
        name,
        shown.match(new RegExp(`${name}\\s+(\\S+)`))![1],
      ]),
    );
    const health = await client.health();
    assert.equal(fields["Receipt key"], health.receiptKey);
    assert.equal(
      await verifyReceipt({
        memory_id: fields.Memory,
        owner: fields.Owner,
        blob_id: fields.Blob,
        erased_at: fields["Erased at"],
        signature: fields.Signature,
      }, health.receiptKey),
      true,
    );
    const error = await client.get(passportId).catch((e) => e);
    assert.ok(error instanceof SvcError && error.code === "not_found");
    assert.equal((await client.list({ namespace: "journal", limit: 500 })).memories.length, 24);
    assert.equal((await client.get(dogId)).text, "My dog Rex loves the beach");

    // The list no longer shows it, after a reload too.
    await page.getByRole("button", { name: "Show all" }).click();
    await page.getByText("Showing 20, newest first.").waitFor();
    assert.doesNotMatch(await list.innerText(), /passport/);

    // Edit: the corrected version replaces the row, and the old one is gone.
    const dog = list.locator(`li[data-id="${dogId}"]`);
    await dog.getByRole("button", { name: "Edit" }).click();
    const box = dog.getByRole("textbox", { name: "Corrected text" });
    assert.equal(await box.inputValue(), "My dog Rex loves the beach");
    assert.equal(await dog.getByRole("button", { name: "Edit" }).isVisible(), false);
    await dog.getByRole("button", { name: "Cancel" }).click();
    assert.equal(await box.count(), 0);
    assert.equal(
      await page.evaluate<string>("document.activeElement.textContent"),
      "Edit",
      "focus back on Edit",
    );
    // Escape cancels too.
    await dog.getByRole("button", { name: "Edit" }).click();
    await box.press("Escape");
    assert.equal(await box.count(), 0);
    assert.equal(await page.evaluate<string>("document.activeElement.textContent"), "Edit");
    // A text the relayer refuses marks the box as what to fix, and keeps it open.
    await dog.getByRole("button", { name: "Edit" }).click();
    await box.fill("x".repeat(MAX_TEXT_BYTES + 1));
    await dog.getByRole("button", { name: "Save" }).click();
    await page.locator("#status[data-tone=error]").waitFor();
    assert.equal(await box.getAttribute("aria-invalid"), "true");
    assert.equal(await box.getAttribute("aria-describedby"), "status");
    assert.equal(
      await page.evaluate<string>("document.activeElement.getAttribute('aria-label')"),
      "Corrected text",
    );
    await box.press("Backspace");
    assert.equal(await box.getAttribute("aria-invalid"), null, "edited: no longer the one refused");
    await box.press("Escape");
    assert.equal((await client.get(dogId)).text, "My dog Rex loves the beach");
    // Saved unchanged, it stores no new version.
    await dog.getByRole("button", { name: "Edit" }).click();
    await dog.getByRole("button", { name: "Save" }).click();
    await box.waitFor({ state: "detached" });
    assert.equal((await client.get(dogId)).text, "My dog Rex loves the beach");
    await dog.getByRole("button", { name: "Edit" }).click();
    await box.fill("My dog Rex loves the beach and the snow");
    await screenshot(page, "memories-edit-390");
    await dog.getByRole("button", { name: "Save" }).click();
    const corrected = list.getByRole("listitem").filter({ hasText: "the beach and the snow" });
    await corrected.waitFor();
    assert.match(await corrected.innerText(), /corrected [^\n]+\npets[\s\S]*by You \(owner key\)/);
    await page.getByRole("status").filter({ hasText: "Corrected" }).first().waitFor();
    const newest = (await client.list({ namespace: "journal", limit: 1 })).memories[0];
    assert.equal(newest.text, "My dog Rex loves the beach and the snow");
    assert.deepEqual(newest.tags, ["pets"]);
    const old = await client.get(dogId).catch((e) => e);
    assert.ok(old instanceof SvcError && old.code === "not_found", "the old version stayed");

    // A memory erased meanwhile (in another tab, by an agent): Delete answers that erase's
    // receipt, and it goes.
    await client.forget(jobs[22]);
    const stale = list.getByRole("listitem").filter({ hasText: "Journal entry 22:" });
    page.once("dialog", (dialog) => dialog.accept());
    await stale.getByRole("button", { name: "Delete" }).click();
    await stale.waitFor({ state: "detached" });
    assert.equal(await page.locator("#status").getAttribute("data-tone"), "success");
    await page.getByText("Showing 19, newest first.").waitFor();
    // And when Save finds it gone.
    await client.forget(jobs[21]);
    const erased = list.locator(`li[data-id="${jobs[21]}"]`);
    await erased.getByRole("button", { name: "Edit" }).click();
    await erased.getByRole("textbox", { name: "Corrected text" }).fill("A changed day");
    await erased.getByRole("button", { name: "Save" }).click();
    await erased.waitFor({ state: "detached" });
    await page.getByText("Showing 18, newest first.").waitFor();
    // And when Save finds it updated meanwhile: the row shows the current version, the status why.
    const agentsVersion = await client.update(jobs[20], { text: "Journal entry 20, by the agent" });
    await client.waitForJob(agentsVersion.job_id);
    const updated = list.locator(`li[data-id="${jobs[20]}"]`);
    await updated.getByRole("button", { name: "Edit" }).click();
    await updated.getByRole("textbox", { name: "Corrected text" }).fill("A changed day");
    await updated.getByRole("button", { name: "Save" }).click();
    await list.locator(`li[data-id="${agentsVersion.job_id}"]`).getByText("by the agent").waitFor();
    await updated.waitFor({ state: "detached" });
    await page.locator("#status[data-tone=error]").filter({ hasText: "an update replaced it" })
      .waitFor();

    // A long namespace, an unbroken word and the button that shows a long text whole wrap at a
    // phone's width (390 px, set above).
    const long = "n".repeat(200);
    const words = "and a few more words ".repeat(300);
    const wide = await client.remember(`See https://example.com/${"x".repeat(150)} ${words}`, {
      namespace: long,
    });
    assert.equal((await client.waitForJob(jobIdOf(wide))).status, "done");
    await page.goto(stack.dashboard);
    const link = page.getByRole("region", { name: "Namespaces" }).getByRole("link", { name: long });
    await link.waitFor();
    assert.equal(await page.evaluate<number>(overflow), 0, "the home page overflows at 390 px");
    await link.click();
    await page.getByText("Showing 1, newest first.").waitFor();
    await screenshot(page, "memories-long-namespace-390");
    assert.equal(await page.evaluate<number>(overflow), 0, "a long namespace overflows at 390 px");

    // A memory its client encrypted, and one the relayer can no longer read (its blob lost, as
    // the relayer answers it: no text, not manual), each say which they are.
    const vector = Array(128).fill(0.5); // the default embedder's dimensions
    const sealed = await client.rememberManual(new Uint8Array([1, 2, 3]), vector, {
      namespace: "sealed",
    });
    const kept = await client.remember("A memory whose blob is lost", { namespace: "sealed" });
    assert.equal((await client.waitForJob(jobIdOf(kept))).status, "done");
    await page.route("**/api/memories?namespace=sealed*", async (route) => {
      const answer = await (await route.fetch()).json();
      answer.memories.find((m: { id: string }) => m.id === jobIdOf(kept)).text = null;
      await route.fulfill({ json: answer });
    });
    await page.goto(`${stack.dashboard}/memories?namespace=sealed`);
    await page.getByText("Showing 2, newest first.").waitFor();
    assert.match(
      await list.locator(`li[data-id="${sealed.id}"]`).innerText(),
      /\(encrypted by the client that stored it\)/,
    );
    assert.match(
      await list.locator(`li[data-id="${jobIdOf(kept)}"]`).innerText(),
      /\(unreadable: its stored copy is missing or its key was erased\)/,
    );

    // A list the relayer refuses says so once, on the page, not again in the status bar.
    await page.route("**/api/memories?namespace=refused*", (route) =>
      route.fulfill({
        status: 401,
        json: { error: "x-timestamp is more than 5 minutes off", code: "unauthorized" },
      }));
    await page.goto(`${stack.dashboard}/memories?namespace=refused`);
    await page.getByText("Cannot list the memories: x-timestamp is more than 5 minutes off")
      .waitFor();
    assert.doesNotMatch(await page.locator("#status").innerText(), /Something went wrong/);

    // A text with CR LF line breaks saved unchanged (a text box gives them as LF) is no change.
    const crlf = await client.remember("Shopping:\r\nmilk\r\neggs", { namespace: "lists" });
    assert.equal((await client.waitForJob(jobIdOf(crlf))).status, "done");
    await page.goto(`${stack.dashboard}/memories?namespace=lists`);
    const shopping = list.locator(`li[data-id="${jobIdOf(crlf)}"]`);
    await shopping.getByRole("button", { name: "Edit" }).click();
    await shopping.getByRole("button", { name: "Save" }).click();
    await shopping.getByRole("textbox", { name: "Corrected text" }).waitFor({ state: "detached" });
    assert.equal((await client.get(jobIdOf(crlf))).text, "Shopping:\r\nmilk\r\neggs");
    assert.equal((await client.list({ namespace: "lists" })).memories.length, 1);

    // The namespace picker counts each namespace, this one too; a memory shows its thread.
    const turn = await client.remember("Bring the tent", { namespace: "lists", thread: "chat-7" });
    assert.equal((await client.waitForJob(jobIdOf(turn))).status, "done");
    await page.goto(`${stack.dashboard}/memories?namespace=lists`);
    await page.getByText("Showing 2, newest first.").waitFor();
    await page.getByRole("option", { name: /^journal \(\d+\)$/ }).waitFor({ state: "attached" });
    assert.equal(await page.getByRole("option", { name: "lists (2)" }).count(), 1);
    assert.match(await list.locator(`li[data-id="${jobIdOf(turn)}"]`).innerText(), /thread chat-7/);

    // Erasing the namespace asks for its name, and checks every receipt.
    page.once("dialog", (dialog) => dialog.accept("list"));
    await page.getByRole("button", { name: "Erase the namespace…" }).click();
    await page.locator("#status").filter({ hasText: "The name typed is not the namespace's" })
      .waitFor();
    assert.equal((await client.list({ namespace: "lists" })).memories.length, 2);
    page.once("dialog", (dialog) => dialog.accept("lists"));
    await page.getByRole("button", { name: "Erase the namespace…" }).click();
    await page.locator("#status").filter({
      hasText: 'Erased 2 memories in "lists"; every receipt\'s signature checks out',
    }).waitFor();
    await page.getByText("No memories in this namespace.").waitFor();
    assert.equal((await client.list({ namespace: "lists" })).memories.length, 0);
    assert.equal(await page.getByLabel("Namespace").locator("option:checked").innerText(), "lists");
    assert.equal(await page.getByRole("button", { name: "Erase the namespace…" }).count(), 0);

    // A namespace stored before names holding what shows as nothing were refused (an import
    // keeps it): shown with it escaped, and erased by its name as shown.
    const hidden = "bad\u200bns";
    const imported = await client.import([{
      text: "A hidden space",
      namespace: hidden,
      thread: "abc\u202egnp.exe",
    }]);
    assert.equal((await client.waitForJob(imported.job_ids[0])).status, "done");
    await page.goto(`${stack.dashboard}/memories?${new URLSearchParams({ namespace: hidden })}`);
    await page.getByText("Showing 1, newest first.").waitFor();
    // A thread id's direction override is shown, escaped, not obeyed.
    await page.getByText("thread abc\\u202egnp.exe").waitFor();
    await page.getByRole("heading", { name: 'Memories in "bad\\u200bns"' }).waitFor();
    await page.getByRole("option", { name: "bad\\u200bns (1)" }).waitFor({ state: "attached" });
    page.once("dialog", (dialog) => dialog.accept("bad\\u200bns"));
    await page.getByRole("button", { name: "Erase the namespace…" }).click();
    await page.locator("#status").filter({ hasText: 'Erased 1 memory in "bad\\u200bns"' })
      .waitFor();
    assert.equal((await client.list({ namespace: hidden })).memories.length, 0);

    // A long text shows its beginning and a button for the rest; a right-to-left text reads so.
    const ending = "and that is the whole story.";
    const story = await client.remember(`Once ${"upon a time ".repeat(200)}${ending}`, {
      namespace: "stories",
    });
    const hebrew = await client.remember("אני צמחוני", { namespace: "stories" });
    for (const job of [story, hebrew]) {
      assert.equal((await client.waitForJob(jobIdOf(job))).status, "done");
    }
    await page.goto(`${stack.dashboard}/memories?namespace=stories`);
    await page.getByText("Showing 2, newest first.").waitFor();
    const storyText = list.locator(`li[data-id="${jobIdOf(story)}"] .memory-text`);
    assert.doesNotMatch(await storyText.innerText(), new RegExp(ending));
    await storyText.getByRole("button", { name: "Show the whole text (2,433 characters)" }).click();
    assert.match(await storyText.innerText(), new RegExp(ending));
    assert.equal(await storyText.getByRole("button").getAttribute("aria-expanded"), "true");
    await storyText.getByRole("button", { name: "Show its beginning only" }).click();
    assert.doesNotMatch(await storyText.innerText(), new RegExp(ending));
    const rtl = list.locator(`li[data-id="${jobIdOf(hebrew)}"] .memory-text`);
    await screenshot(page, "memories-long-text-390");
    assert.equal(
      await rtl.evaluate((p) => p.ownerDocument.defaultView!.getComputedStyle(p).direction),
      "rtl",
    );

    // A single erase counts in the picker too; an empty namespace offers no namespace erase.
    const picked = page.getByLabel("Namespace").locator("option:checked");
    await page.getByRole("option", { name: "stories (2)" }).waitFor({ state: "attached" });
    for (const [job, left] of [[hebrew, "stories (1)"], [story, "stories"]] as const) {
      page.once("dialog", (dialog) => dialog.accept());
      await list.locator(`li[data-id="${jobIdOf(job)}"]`).getByRole("button", { name: "Delete" })
        .click();
      await list.locator(`li[data-id="${jobIdOf(job)}"]`).waitFor({ state: "detached" });
      assert.equal(await picked.innerText(), left);
    }
    assert.equal(await page.getByRole("button", { name: "Erase the namespace…" }).count(), 0);
  } finally {
    await browser?.close();
    await relayer?.stop();
    await Deno.remove(dataDir, { recursive: true });
  }
});
