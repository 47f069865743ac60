import { Client, Connection } from '@temporalio/client';
import type { Config } from '../config';
import { temporalDataConverter } from './data-converter';

export async function connectTemporalClient(config: Config['temporal']): Promise<Client> {
  const connection = await Connection.connect({ address: config.address, tls: config.tls ? {} : undefined });
  return new Client({ connection, namespace: config.namespace, dataConverter: temporalDataConverter(config) });
}
