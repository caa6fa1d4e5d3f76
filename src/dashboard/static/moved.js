// What a loopback address (127.0.0.1, [::1]) answers with: the dashboard has one origin,
// localhost, since a browser keeps a wallet per origin. Without a wallet here the page goes
// there; with one (made at this address by an earlier version) it offers the wallet's backup,
// to restore at localhost, so the wallet is not left behind.
import { loadWallet } from "./wallet.js";
import { backupPanel } from "./session.js";
import { card, h, render } from "./ui.js";

const there = new URL(location.href);
there.hostname = "localhost";
const wallet = await loadWallet().catch(() => null);
if (!wallet) {
  location.replace(there.href);
} else {
  document.title = "svc — move your wallet";
  render(card(
    "Move your wallet to the dashboard's address",
    h(
      "p",
      {},
      `The dashboard is now at ${there.origin}. This address (${location.host}) still holds ` +
        `the wallet ${wallet.address}, made here by an earlier version, and a browser keeps a ` +
        "wallet per address. Download its backup, then open the dashboard and choose " +
        "Restore from a backup.",
    ),
    ...backupPanel(wallet),
    h(
      "div",
      { class: "actions" },
      h("a", { href: there.href, class: "button primary" }, "Open the dashboard"),
    ),
  ));
}
