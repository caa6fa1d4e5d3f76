/// svc accounts on Sui: one `SvcAccount` per owner address, holding the Ed25519 delegate keys
/// that may sign requests to a relayer and decrypt the owner's memories through Seal.
///
/// The rules mirror the local ledger of embedded mode (`src/chain/local_ledger.ts`): one account
/// per owner, at most 20 delegate keys, labels of at most 64 bytes, 32-byte Ed25519 public keys,
/// a key registered on at most one account, changes by the owner only, no new keys on an
/// inactive account. Every refusal is an abort with one of the codes below, which the relayer
/// maps to the ledger's rejection reasons (`plugins/sui/svc_account.ts`).
///
/// The registry is one shared object created at publication. Besides owner → account it
/// indexes delegate address → account, so a relayer can resolve a delegate key without being
/// told which account it belongs to.
///
/// A delegate key may be scoped: to some namespaces (which only the relayer can check: the
/// chain knows memory ids, not namespaces), to some operations (`read` 1, `write` 2, `erase` 4,
/// `audit` 8 in a bit mask) and until an expiry. The chain enforces what it decides itself:
/// `erase_memories` needs the erase operation, `seal_approve` the read operation, and both
/// refuse a key past its expiry. Empty namespaces, a zero mask and a zero expiry mean no limit.
///
/// Erasing a memory destroys its key: the account keeps the erased identities (the part after
/// the owner's address, the memory's 16 id bytes for svc) in a table of dynamic fields, which
/// `erase_memories` adds to and `seal_approve` refuses, so the key servers never release that
/// identity's key again.
module svc_account::account;

use std::string::String;
use sui::address;
use sui::clock::Clock;
use sui::event;
use sui::hash::blake2b256;
use sui::table::{Self, Table};

const MAX_DELEGATE_KEYS: u64 = 20;
const MAX_LABEL_BYTES: u64 = 64;
const ED25519_PUBLIC_KEY_BYTES: u64 = 32;
/// Sui's signature-scheme flag of Ed25519, the first byte hashed into an address.
const ED25519_FLAG: u8 = 0;
/// Most ids one `erase_memories` call takes.
const MAX_ERASE_IDS: u64 = 256;
/// Longest erased id in bytes (the identity after the owner's 32 address bytes).
const MAX_ERASED_ID_BYTES: u64 = 64;
/// Most namespaces a delegate key may be limited to.
const MAX_SCOPE_NAMESPACES: u64 = 32;
/// Longest namespace in bytes.
const MAX_NAMESPACE_BYTES: u64 = 256;
/// Operation bits of `DelegateKey.operations`; a mask of 0 allows every operation.
const OP_READ: u8 = 1;
const OP_ERASE: u8 = 4;
/// read | write | erase | audit: the bits a mask may have.
const ALL_OPERATIONS: u8 = 15;

/// The sender is not the account's owner.
const ENotOwner: u64 = 1;
/// The sender already owns an account.
const EAccountExists: u64 = 2;
/// The account is inactive (adding a key) or already inactive (deactivating).
const EInactiveAccount: u64 = 3;
/// The account is already active.
const EAlreadyActive: u64 = 4;
/// The account already holds `MAX_DELEGATE_KEYS` keys.
const ETooManyKeys: u64 = 5;
/// The key is already registered on an account: as a delegate key, or as an account's owner
/// (a request the key signed would be taken for either).
const EDuplicateKey: u64 = 6;
/// The key is not on this account.
const EUnknownKey: u64 = 7;
/// The label is longer than `MAX_LABEL_BYTES` bytes.
const ELabelTooLong: u64 = 8;
/// The public key is not 32 bytes.
const EBadPublicKey: u64 = 9;
/// `seal_approve`: the caller may not decrypt this identity.
const ENoAccess: u64 = 10;
/// `seal_approve`: the identity was erased.
const EErased: u64 = 11;
/// `erase_memories`: the sender is neither the owner nor one of the account's delegate keys.
const ENotOwnerOrDelegate: u64 = 12;
/// `erase_memories`: more than `MAX_ERASE_IDS` ids, or an id empty or longer than
/// `MAX_ERASED_ID_BYTES`.
const EBadErasedIds: u64 = 13;
/// `add_delegate_key`: more than `MAX_SCOPE_NAMESPACES` namespaces, one empty or longer than
/// `MAX_NAMESPACE_BYTES`, or an operation bit outside `ALL_OPERATIONS`.
const EBadScope: u64 = 14;
/// `erase_memories`: the sender is a delegate key without the erase operation, or past its expiry.
const EKeyNotAllowed: u64 = 15;

public struct DelegateKey has store, copy, drop {
    public_key: vector<u8>,
    /// blake2b256(0x00 ‖ public_key): the key's Sui address (its Seal session address).
    sui_address: address,
    label: String,
    /// Clock time of registration, Unix milliseconds.
    created_at: u64,
    /// The namespaces the key may use; empty: all. Enforced by the relayer.
    namespaces: vector<String>,
    /// The operations the key may perform, a mask of `OP_*` bits; 0: all.
    operations: u8,
    /// Clock time from which the key is refused, Unix milliseconds; 0: never.
    expires_at: u64,
}

/// Shared, so that delegates can pass it to `seal_approve`; only its owner changes it.
public struct SvcAccount has key {
    id: UID,
    owner: address,
    delegate_keys: vector<DelegateKey>,
    created_at: u64,
    active: bool,
    /// Erased identities (without the owner's address) → true; `seal_approve` refuses them.
    erased: Table<vector<u8>, bool>,
}

public struct AccountRegistry has key {
    id: UID,
    /// owner address → account id
    accounts: Table<address, ID>,
    /// delegate key address → account id
    delegates: Table<address, ID>,
}

public struct AccountCreated has copy, drop { account_id: ID, owner: address }
public struct DelegateKeyAdded has copy, drop { account_id: ID, public_key: vector<u8> }
public struct DelegateKeyRemoved has copy, drop { account_id: ID, public_key: vector<u8> }
/// The ids one `erase_memories` call erased (those erased before are left out).
public struct MemoriesErased has copy, drop {
    account_id: ID,
    ids: vector<vector<u8>>,
    /// Clock time of the erase, Unix milliseconds.
    erased_at: u64,
}

fun init(ctx: &mut TxContext) {
    transfer::share_object(AccountRegistry {
        id: object::new(ctx),
        accounts: table::new(ctx),
        delegates: table::new(ctx),
    });
}

/// Creates the sender's account (shared), at most one per owner.
entry fun create_account(registry: &mut AccountRegistry, clock: &Clock, ctx: &mut TxContext) {
    let owner = ctx.sender();
    assert!(!registry.accounts.contains(owner), EAccountExists);
    let account = SvcAccount {
        id: object::new(ctx),
        owner,
        delegate_keys: vector[],
        created_at: clock.timestamp_ms(),
        active: true,
        erased: table::new(ctx),
    };
    let account_id = object::id(&account);
    registry.accounts.add(owner, account_id);
    event::emit(AccountCreated { account_id, owner });
    transfer::share_object(account);
}

/// Adds a delegate key limited to `namespaces` (empty: all) and the `operations` of its mask
/// (0: all) until `expires_at` (Unix milliseconds; 0: never).
entry fun add_delegate_key(
    registry: &mut AccountRegistry,
    account: &mut SvcAccount,
    public_key: vector<u8>,
    label: String,
    namespaces: vector<String>,
    operations: u8,
    expires_at: u64,
    clock: &Clock,
    ctx: &TxContext,
) {
    assert!(account.owner == ctx.sender(), ENotOwner);
    assert!(account.active, EInactiveAccount);
    assert!(public_key.length() == ED25519_PUBLIC_KEY_BYTES, EBadPublicKey);
    assert!(label.length() <= MAX_LABEL_BYTES, ELabelTooLong);
    assert!(operations <= ALL_OPERATIONS, EBadScope);
    assert!(namespaces.length() <= MAX_SCOPE_NAMESPACES, EBadScope);
    assert!(
        namespaces.all!(|n| n.length() > 0 && n.length() <= MAX_NAMESPACE_BYTES),
        EBadScope,
    );
    assert!(account.delegate_keys.length() < MAX_DELEGATE_KEYS, ETooManyKeys);
    let sui_address = ed25519_address(&public_key);
    assert!(!registry.delegates.contains(sui_address), EDuplicateKey);
    assert!(!registry.accounts.contains(sui_address), EDuplicateKey);
    let account_id = object::id(account);
    registry.delegates.add(sui_address, account_id);
    account.delegate_keys.push_back(DelegateKey {
        public_key,
        sui_address,
        label,
        created_at: clock.timestamp_ms(),
        namespaces,
        operations,
        expires_at,
    });
    event::emit(DelegateKeyAdded { account_id, public_key });
}

/// Allowed on an inactive account too, so that an owner can always revoke.
entry fun remove_delegate_key(
    registry: &mut AccountRegistry,
    account: &mut SvcAccount,
    public_key: vector<u8>,
    ctx: &TxContext,
) {
    assert!(account.owner == ctx.sender(), ENotOwner);
    let keys = &account.delegate_keys;
    let mut i = 0;
    while (i < keys.length() && keys[i].public_key != public_key) i = i + 1;
    assert!(i < keys.length(), EUnknownKey);
    let key = account.delegate_keys.remove(i);
    registry.delegates.remove(key.sui_address);
    event::emit(DelegateKeyRemoved { account_id: object::id(account), public_key });
}

entry fun deactivate_account(account: &mut SvcAccount, ctx: &TxContext) {
    assert!(account.owner == ctx.sender(), ENotOwner);
    assert!(account.active, EInactiveAccount);
    account.active = false;
}

entry fun reactivate_account(account: &mut SvcAccount, ctx: &TxContext) {
    assert!(account.owner == ctx.sender(), ENotOwner);
    assert!(!account.active, EAlreadyActive);
    account.active = true;
}

/// Erases memories: their identities (each the part after the owner's address) join the
/// account's erased set, and `seal_approve` refuses them from then on. The owner may erase at any
/// time; a delegate key (the sender is its Sui address) while the account is active, if it has
/// the erase operation and has not expired. Ids erased before are skipped, so a repeated erase
/// is harmless.
entry fun erase_memories(
    account: &mut SvcAccount,
    ids: vector<vector<u8>>,
    clock: &Clock,
    ctx: &TxContext,
) {
    let sender = ctx.sender();
    let is_owner = sender == account.owner;
    assert!(
        is_owner || account.delegate_keys.any!(|k| k.sui_address == sender),
        ENotOwnerOrDelegate,
    );
    assert!(is_owner || account.active, EInactiveAccount);
    let now = clock.timestamp_ms();
    assert!(
        is_owner || account.delegate_keys.any!(|k| {
            k.sui_address == sender && key_allows(k, OP_ERASE, now)
        }),
        EKeyNotAllowed,
    );
    assert!(ids.length() <= MAX_ERASE_IDS, EBadErasedIds);
    let mut erased = vector[];
    let mut i = 0;
    while (i < ids.length()) {
        let id = ids[i];
        assert!(id.length() > 0 && id.length() <= MAX_ERASED_ID_BYTES, EBadErasedIds);
        if (!account.erased.contains(id)) {
            account.erased.add(id, true);
            erased.push_back(id);
        };
        i = i + 1;
    };
    if (!erased.is_empty()) {
        event::emit(MemoriesErased {
            account_id: object::id(account),
            ids: erased,
            erased_at: clock.timestamp_ms(),
        });
    }
}

/// Seal access policy: the identity `id` is the owner's 32 address bytes followed by anything;
/// the owner and the account's delegate keys (by their Sui addresses, which their Seal session
/// keys sign as) with the read operation and not past their expiry may decrypt it while the
/// account is active, unless it was erased.
entry fun seal_approve(id: vector<u8>, account: &SvcAccount, clock: &Clock, ctx: &TxContext) {
    assert!(account.active, ENoAccess);
    let owner_bytes = address::to_bytes(account.owner);
    assert!(id.length() >= owner_bytes.length(), ENoAccess);
    let mut i = 0;
    while (i < owner_bytes.length()) {
        assert!(id[i] == owner_bytes[i], ENoAccess);
        i = i + 1;
    };
    let caller = ctx.sender();
    let now = clock.timestamp_ms();
    assert!(
        caller == account.owner || account.delegate_keys.any!(|k| {
            k.sui_address == caller && key_allows(k, OP_READ, now)
        }),
        ENoAccess,
    );
    assert!(!account.erased.contains(suffix(&id, owner_bytes.length())), EErased);
}

/// Whether a delegate key may perform `operation` (one `OP_*` bit) at clock time `now`.
fun key_allows(key: &DelegateKey, operation: u8, now: u64): bool {
    (key.operations == 0 || (key.operations & operation) != 0) &&
        (key.expires_at == 0 || now < key.expires_at)
}

/// The bytes of `bytes` from `start` on.
fun suffix(bytes: &vector<u8>, start: u64): vector<u8> {
    let mut out = vector[];
    let mut i = start;
    while (i < bytes.length()) {
        out.push_back(bytes[i]);
        i = i + 1;
    };
    out
}

/// The Sui address of an Ed25519 public key: blake2b256(0x00 ‖ public key).
fun ed25519_address(public_key: &vector<u8>): address {
    let mut bytes = vector[ED25519_FLAG];
    bytes.append(*public_key);
    address::from_bytes(blake2b256(&bytes))
}

// ---- Read-only accessors -----------------------------------------------------------------

public fun owner(account: &SvcAccount): address { account.owner }

public fun is_active(account: &SvcAccount): bool { account.active }

public fun delegate_keys(account: &SvcAccount): vector<DelegateKey> { account.delegate_keys }

/// Whether an identity (without the owner's address) was erased.
public fun is_erased(account: &SvcAccount, id: vector<u8>): bool { account.erased.contains(id) }

public fun account_of(registry: &AccountRegistry, owner: address): Option<ID> {
    if (registry.accounts.contains(owner)) option::some(registry.accounts[owner])
    else option::none()
}
