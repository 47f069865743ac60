import { randomUUID } from 'node:crypto';
import type { DataSource } from 'typeorm';
import { Listing } from '../../src/db/entities';
import { newId } from '../../src/ids';

export interface FixtureItem {
  urn: string;
  name: string;
  rarity?: string;
}

/**
 * Inserts a small catalog directly (game → series → set → items) for tests that need items but
 * are not about importing them. URNs are unique per call unless given.
 */
export async function seedCatalog(
  db: DataSource,
  options: { set?: string; names?: string[] } = {},
): Promise<{ setUrn: string; items: FixtureItem[] }> {
  const set = options.set ?? `set${randomUUID().slice(0, 8)}`;
  await db.query(`INSERT INTO catalog_games (urn, name) VALUES ('pokemon', 'Pokémon') ON CONFLICT DO NOTHING`);
  await db.query(`INSERT INTO catalog_series (urn, game_urn, name) VALUES ('pokemon/base', 'pokemon', 'Base') ON CONFLICT DO NOTHING`);
  const setUrn = `pokemon/base/${set}`;
  await db.query(
    `INSERT INTO catalog_sets (urn, series_urn, game_urn, name, printed_count, total_count, "references", size, released)
     VALUES ($1, 'pokemon/base', 'pokemon', $2, 102, 102, '{BS}', 102, '1999-01-09')`,
    [setUrn, `Set ${set}`],
  );
  const names = options.names ?? ['Alakazam', 'Blastoise', 'Charizard'];
  const items = names.map((name, i) => ({ urn: `${setUrn}/${i + 1}`, name, rarity: 'Rare Holo' }));
  for (const [i, it] of items.entries()) {
    await db.query(
      `INSERT INTO catalog_items (urn, slug, type, game_urn, series_urn, set_urn, title, name, rarity, number)
       VALUES ($1, $2, 'card', 'pokemon', 'pokemon/base', $3, $4, $5, $6, $7)`,
      [it.urn, `${it.name.toLowerCase()}-${set}-${i + 1}`, setUrn, `${it.name} (${set} ${i + 1}/102)`, it.name, it.rarity, String(i + 1)],
    );
  }
  return { setUrn, items };
}

/** Inserts a listing row directly (for tests that are not about creating listings). */
export async function insertListing(db: DataSource, values: Partial<Listing> & { sellerId: string; itemUrn: string }): Promise<Listing> {
  const row = db.getRepository(Listing).create({
    id: newId(),
    condition: 'NEAR_MINT',
    language: 'en',
    price: 1000,
    quantity: 1,
    reserved: 0,
    comment: '',
    variants: [],
    hidden: false,
    valid: true,
    ...values,
  });
  await db.getRepository(Listing).insert(row);
  return db.getRepository(Listing).findOneByOrFail({ id: row.id });
}
