import { Client, Connection, type ClientInterceptors } from '@temporalio/client';
import type { Config } from '../config';
import { temporalDataConverter } from './data-converter';

/** `interceptors`: the tracing ones when tracing is on (src/observability/tracing.ts). */
export async function connectTemporalClient(config: Config['temporal'], interceptors?: ClientInterceptors): Promise<Client> {
  const connection = await Connection.connect({ address: config.address, tls: config.tls ? {} : undefined });
  return new Client({
    connection,
    namespace: config.namespace,
    dataConverter: temporalDataConverter(config),
    ...(interceptors ? { interceptors } : {}),
  });
}
