import { updateClaimsSuite } from "../testing/update_claims_suite.ts";
import { MemoryStateStore } from "../state/memory_state_store.ts";
import { MemoryUpdateClaims, StateUpdateClaims } from "./update_claims.ts";

updateClaimsSuite("MemoryUpdateClaims", () => Promise.resolve(new MemoryUpdateClaims()));
updateClaimsSuite(
  "StateUpdateClaims",
  () => StateUpdateClaims.open(new MemoryStateStore(), new Uint8Array(32).fill(1)),
);
