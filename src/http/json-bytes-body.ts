/**
 * A JSON body already serialized by `toJsonBytes` (kept so by a cache: a hit then costs
 * neither `JSON.stringify` nor encoding). The router sends the bytes as `application/json` unchanged,
 * and parses them back only when it validates responses against their schemas.
 */
export class JsonBytes {
  constructor(readonly bytes: Buffer) {}
}
