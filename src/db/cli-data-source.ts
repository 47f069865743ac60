// The TypeORM CLI wants a module exporting exactly one DataSource
// (e.g. `npx typeorm-ts-node-commonjs migration:generate -d src/db/cli-data-source.ts`).
import { createDataSource } from './data-source';

export default createDataSource({ url: process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/marketplace' });
