import { textClaimsSuite } from "../testing/text_claims_suite.ts";
import { MemoryTextClaims } from "./text_claims.ts";

textClaimsSuite("MemoryTextClaims", () => Promise.resolve(new MemoryTextClaims()));
