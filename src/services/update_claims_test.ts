import { updateClaimsSuite } from "../testing/update_claims_suite.ts";
import { MemoryUpdateClaims } from "./update_claims.ts";

updateClaimsSuite("MemoryUpdateClaims", () => Promise.resolve(new MemoryUpdateClaims()));
