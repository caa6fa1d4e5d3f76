/**
 * The PostgreSQL plugin: the database many relayers share, and the stores built on it.
 * @module
 */
export { Database } from "./database.ts";
export { PgBlobStore } from "./blob_store.ts";
export { PgBlockStorage } from "./block_storage.ts";
export { PgJobQueue } from "./job_queue.ts";
export { PgIndexSet, type PgIndexSetOptions } from "./index_set.ts";
export { PgKeyStore } from "./key_store.ts";
export { LEDGER_PREFIX, openPgLedger } from "./ledger.ts";
export { PgStateStore, type StateRow, upsertState } from "./state_store.ts";
export { PgReplayGuard } from "./replay_guard.ts";
export { PgTextClaims } from "./text_claims.ts";
export {
  COPY_PHASES,
  copyDone,
  type CopyPhase,
  copySource,
  holdsState,
  importDeadLetters,
  importJobs,
  ImportProgress,
  importReplayClaims,
  refuseUnfinishedCopy,
} from "./store_import.ts";

export type {
  AcceptOptions,
  BlobEntry,
  BlobMeta,
  BlobStore,
  CallOptions,
  CarriedClaim,
  CiphertextToSave,
  Fingerprint,
  IndexEmbedding,
  IndexPartition,
  JobCompletion,
  JobHandler,
  JobInput,
  JobMessage,
  JobQueue,
  JobRecord,
  JobStatus,
  KeyPlace,
  KeyStore,
  ListedBlobMeta,
  ListenOptions,
  MemoryInfo,
  NamespaceCount,
  Operation,
  PendingClaim,
  PublicJob,
  ReplayGuard,
  StateBatch,
  StateEntry,
  StateKey,
  StateKeyPart,
  StateListOptions,
  StateSelector,
  StateSetOptions,
  StateStore,
  StoredJobQueue,
  TermsRow,
  TextClaim,
  TextClaims,
  VectorHit,
  VectorIndexSet,
  VectorRow,
  VectorStore,
} from "@svc/relayer/kit";
export type {
  BlockStorage,
  IndexChange,
  IndexMeta,
  ListedBlock,
  NamespaceHeader,
  NamespaceRef,
  StorageWatcher,
  StoredBlock,
  StoredHeader,
} from "@svc/encrypted-index/storage";
export type {
  DelegateKey,
  LedgerAccount,
  LedgerChange,
  LedgerStore,
  StateLedgerStore,
  StoredTransaction,
  TransactionEffects,
  TransactionKind,
} from "@svc/local-ledger";
