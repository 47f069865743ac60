import { Client, Connection, type ClientInterceptors, type ConnectionLike } from '@temporalio/client';
import type { Config } from '../config';
import { temporalDataConverter } from './data-converter';

/** `interceptors`: the tracing ones when tracing is on (src/observability/tracing.ts). */
export async function connectTemporalClient(config: Config['temporal'], interceptors?: ClientInterceptors): Promise<Client> {
  const connection = await Connection.connect({ address: config.address, tls: config.tls ? {} : undefined });
  return temporalClient(connection, config, interceptors);
}

/**
 * A client on a connection of the caller's: the worker passes its own NativeConnection, on which
 * starts can be eager (see TemporalStartExecutor).
 */
export function temporalClient(connection: ConnectionLike, config: Config['temporal'], interceptors?: ClientInterceptors): Client {
  return new Client({
    connection,
    namespace: config.namespace,
    dataConverter: temporalDataConverter(config),
    ...(interceptors ? { interceptors } : {}),
  });
}
