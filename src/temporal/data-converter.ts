import type { DataConverter } from '@temporalio/common';
import type { Config } from '../config';
import { AesGcmPayloadCodec } from './payload-codec';

/** What every client and worker of this application converts payloads with: JSON, then sealed. */
export function temporalDataConverter(config: Pick<Config['temporal'], 'payloadKeys'>): DataConverter {
  return { payloadCodecs: [new AesGcmPayloadCodec(config.payloadKeys)] };
}
