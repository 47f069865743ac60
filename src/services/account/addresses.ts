import type { DataSource, EntityManager } from 'typeorm';
import { newId } from '../../ids';
import type { AddressLookupProvider, FindRequest, LookupSuggestion, RetrievedAddress } from '../../integrations/address-lookup/port';
import type { DeliveryAddress } from '../basket/pricing';
import { conflict, invalid, notFound } from '../errors';

/** Every field of a retrieved address, for the route's response schema (the provider port owns the list). */
export { RETRIEVED_FIELDS } from '../../integrations/address-lookup/port';

/**
 * A saved address (`sa`) as a delivery address; with no recipient name saved, the parcel is
 * addressed to the account's username (`u`).
 */
export const SAVED_ADDRESS_AS_DELIVERY = `jsonb_build_object('name', coalesce(nullif(sa.name, ''), u.username), 'line1', sa.line1, 'line2', sa.line2,
  'city', sa.city, 'state', sa.state, 'postal_code', sa.postal_code, 'country', sa.country)`;

/** One of the user's saved addresses as a delivery address (`addressId`); another user's is not found. */
export async function savedDeliveryAddress(db: DataSource | EntityManager, userId: string, addressId: string): Promise<DeliveryAddress> {
  const [row]: Array<{ address: DeliveryAddress }> = await db.query(
    `SELECT ${SAVED_ADDRESS_AS_DELIVERY} AS address FROM saved_addresses sa JOIN users u ON u.id = sa.user_id WHERE sa.id = $1 AND sa.user_id = $2`,
    [addressId, userId],
  );
  if (!row) throw notFound('Address');
  return row.address;
}

/** The spec's limit on saved addresses per user (all types together). */
export const MAX_SAVED_ADDRESSES = 10;

export type AddressType = 'shipping' | 'billing';

/** The client's fields of a saved address; `lookupId` is checked, `isValidated` is never taken from here. */
export interface AddressInput {
  type: AddressType;
  label?: string;
  name?: string;
  line1: string;
  line2?: string;
  city: string;
  state: string;
  postalCode: string;
  country: string;
  lookupId?: string | null;
  isPrimary?: boolean;
}

export interface SavedAddress {
  id: string;
  type: AddressType;
  label: string;
  name: string;
  line1: string;
  line2: string;
  city: string;
  state: string;
  postalCode: string;
  country: string;
  lookupId: string | null;
  isValidated: boolean;
  isPrimary: boolean;
  createdAt: Date;
  updatedAt: Date;
}

const COLUMNS = `id, type, label, name, line1, line2, city, state, postal_code AS "postalCode", country, lookup_id AS "lookupId",
  is_validated AS "isValidated", is_primary AS "isPrimary", created_at AS "createdAt", updated_at AS "updatedAt"`;

const norm = (s: string) => s.trim().replace(/\s+/g, ' ').toLowerCase();

/**
 * True when the saved fields are the ones the provider returned: an address edited after
 * lookup keeps its `lookupId` (where it came from) but is no longer validated.
 */
function matchesRetrieved(a: Pick<AddressInput, 'line1' | 'city' | 'postalCode' | 'country'>, r: RetrievedAddress): boolean {
  return (
    norm(a.line1) === norm(r.line1) &&
    norm(a.city) === norm(r.city) &&
    norm(a.postalCode) === norm(r.postalCode) &&
    norm(a.country) === norm(r.countryIso2)
  );
}

/**
 * Saved addresses and the assisted lookup in front of them. Every write locks the owner's user
 * row first, so the 10-address limit and the one-primary-per-type rule hold under concurrency.
 */
export class SavedAddresses {
  constructor(
    private readonly db: DataSource,
    private readonly lookup: AddressLookupProvider,
    private readonly options: { retrieveTtlSeconds: number },
  ) {}

  /** What the configured provider covers (the `Address-Lookup-Coverage` header of a find). */
  get lookupCoverage(): string {
    return this.lookup.coverage;
  }

  find(request: FindRequest): Promise<LookupSuggestion[]> {
    return this.lookup.find(request);
  }

  /** Retrieves a suggestion and records that this user received it (what validation trusts). */
  async retrieve(userId: string, id: string): Promise<RetrievedAddress> {
    const address = await this.lookup.retrieve(id);
    if (!address) {
      throw invalid('lookup-id-invalid', 'That lookup id cannot be retrieved; search again with find.', [
        { in: 'body', field: 'id', message: '"id" is not a retrievable address id' },
      ]);
    }
    await this.db.query(
      `INSERT INTO address_lookup_retrieves (user_id, lookup_id, address) VALUES ($1, $2, $3)
       ON CONFLICT (user_id, lookup_id) DO UPDATE SET address = EXCLUDED.address, retrieved_at = now()`,
      [userId, address.id, JSON.stringify(address)],
    );
    return address;
  }

  list(userId: string): Promise<SavedAddress[]> {
    return this.db.query(`SELECT ${COLUMNS} FROM saved_addresses WHERE user_id = $1 ORDER BY created_at, id`, [userId]);
  }

  async get(userId: string, id: string, db: DataSource | EntityManager = this.db, lock = false): Promise<SavedAddress> {
    const [row]: SavedAddress[] = await db.query(
      `SELECT ${COLUMNS} FROM saved_addresses WHERE id = $1 AND user_id = $2${lock ? ' FOR UPDATE' : ''}`,
      [id, userId],
    );
    if (!row) throw notFound('Address');
    return row;
  }

  async create(userId: string, input: AddressInput): Promise<SavedAddress> {
    return this.db.transaction(async (tx) => {
      await tx.query('SELECT 1 FROM users WHERE id = $1 FOR UPDATE', [userId]);
      const [{ count }]: [{ count: number }] = await tx.query(`SELECT count(*)::int AS count FROM saved_addresses WHERE user_id = $1`, [
        userId,
      ]);
      if (count >= MAX_SAVED_ADDRESSES) {
        throw conflict('address-limit-reached', `A user may store at most ${MAX_SAVED_ADDRESSES} addresses; delete one first.`);
      }
      const isValidated = await this.validated(tx, userId, input);
      const isPrimary = input.isPrimary ?? false;
      if (isPrimary) await this.clearPrimary(tx, userId, input.type);
      const id = newId();
      await tx.query(
        `INSERT INTO saved_addresses (id, user_id, type, label, name, line1, line2, city, state, postal_code, country, lookup_id, is_validated, is_primary)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14)`,
        [
          id,
          userId,
          input.type,
          input.label ?? '',
          input.name ?? '',
          input.line1,
          input.line2 ?? '',
          input.city,
          input.state,
          input.postalCode,
          input.country,
          input.lookupId ?? null,
          isValidated,
          isPrimary,
        ],
      );
      return this.get(userId, id, tx);
    });
  }

  /** Replaces the address's fields (absent optional fields keep their value). */
  async update(userId: string, id: string, patch: Partial<AddressInput>): Promise<SavedAddress> {
    return this.db.transaction(async (tx) => {
      await tx.query('SELECT 1 FROM users WHERE id = $1 FOR UPDATE', [userId]);
      const current = await this.get(userId, id, tx, true);
      const next = { ...current, ...patch } as SavedAddress & AddressInput;
      const addressChanged = (['line1', 'city', 'postalCode', 'country'] as const).some(
        (k) => patch[k] !== undefined && patch[k] !== current[k],
      );
      const lookupChanged = patch.lookupId !== undefined && patch.lookupId !== current.lookupId;
      const isValidated = addressChanged || lookupChanged ? await this.validated(tx, userId, next) : current.isValidated;
      if (next.isPrimary) await this.clearPrimary(tx, userId, next.type, id);
      await tx.query(
        `UPDATE saved_addresses SET type = $3, label = $4, name = $5, line1 = $6, line2 = $7, city = $8, state = $9, postal_code = $10,
                country = $11, lookup_id = $12, is_validated = $13, is_primary = $14, updated_at = now()
          WHERE id = $1 AND user_id = $2`,
        [
          id,
          userId,
          next.type,
          next.label,
          next.name,
          next.line1,
          next.line2,
          next.city,
          next.state,
          next.postalCode,
          next.country,
          next.lookupId,
          isValidated,
          next.isPrimary,
        ],
      );
      return this.get(userId, id, tx);
    });
  }

  async remove(userId: string, id: string): Promise<void> {
    const [, affected]: [unknown, number] = await this.db.query(`DELETE FROM saved_addresses WHERE id = $1 AND user_id = $2`, [id, userId]);
    if (!affected) throw notFound('Address');
  }

  /**
   * Whether the address is validated: only when `lookupId` names an address this user
   * retrieved recently and the fields are the retrieved ones. An id the user never retrieved
   * is refused rather than stored, so `lookupId` always means "came from lookup".
   */
  private async validated(
    tx: EntityManager,
    userId: string,
    input: Pick<AddressInput, 'lookupId' | 'line1' | 'city' | 'postalCode' | 'country'>,
  ): Promise<boolean> {
    if (!input.lookupId) return false;
    const [row]: Array<{ address: RetrievedAddress }> = await tx.query(
      `SELECT address FROM address_lookup_retrieves
        WHERE user_id = $1 AND lookup_id = $2 AND retrieved_at > now() - make_interval(secs => $3)`,
      [userId, input.lookupId, this.options.retrieveTtlSeconds],
    );
    if (!row) {
      throw invalid('lookup-id-unknown', 'That `lookupId` was not retrieved through the address lookup recently; retrieve it first.', [
        { in: 'body', field: 'lookupId', message: '"lookupId" must come from POST /user/addresses/lookup/retrieve' },
      ]);
    }
    return matchesRetrieved(input, row.address);
  }

  private async clearPrimary(tx: EntityManager, userId: string, type: AddressType, exceptId?: string): Promise<void> {
    await tx.query(
      `UPDATE saved_addresses SET is_primary = false, updated_at = now()
        WHERE user_id = $1 AND type = $2 AND is_primary AND id <> coalesce($3::uuid, '00000000-0000-0000-0000-000000000000')`,
      [userId, type, exceptId ?? null],
    );
  }
}
