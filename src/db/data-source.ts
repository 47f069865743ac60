import 'reflect-metadata';
import { DataSource } from 'typeorm';
import { entities } from './entities';
import { migrations } from './migrations';

export interface DataSourceOptions {
  url: string;
  /** Pool size; the API and the worker each hold their own pool. */
  poolSize?: number;
  applicationName?: string;
}

export function createDataSource({ url, poolSize = 10, applicationName = 'marketplace' }: DataSourceOptions): DataSource {
  return new DataSource({
    type: 'postgres',
    url,
    entities,
    migrations,
    migrationsTransactionMode: 'each',
    synchronize: false,
    logging: false,
    extra: { max: poolSize, application_name: applicationName },
  });
}

/** Connects and brings the schema up to date; used by the API, the worker and `npm run migrate`. */
export async function connectAndMigrate(options: DataSourceOptions): Promise<DataSource> {
  const ds = createDataSource(options);
  await ds.initialize();
  await ds.runMigrations();
  return ds;
}
