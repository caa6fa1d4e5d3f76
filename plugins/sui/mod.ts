/**
 * Network-mode Sui plugins: the account directory over `SvcAccount` objects and the sponsor
 * (gas station) for the `svc_account` module's transactions.
 */
export { SuiAccountDirectory, type SuiAccountDirectoryOptions } from "./account_directory.ts";
export * from "./svc_account.ts";
export { SuiSponsor, type SuiSponsoredEffects, type SuiSponsorOptions } from "./sponsor.ts";
export type {
  AccountDirectory,
  CallOptions,
  ResolvedAccount,
  Sponsor,
  SponsoredTransaction,
} from "@svc/relayer/kit";
