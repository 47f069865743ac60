/**
 * A JSON body already serialized by `toJsonBytes` (kept so by a cache: a hit then costs
 * neither `JSON.stringify` nor encoding), as one Buffer or as pieces in order (cached items between
 * the brackets and commas of an answer). The router joins the pieces into a reused buffer
 * (`AnswerBuffers`), sends the bytes as `application/json` unchanged, and parses them back only
 * when it validates responses against their schemas.
 */
export class JsonBytes {
  readonly parts: readonly Buffer[];

  constructor(bytes: Buffer | readonly Buffer[]) {
    this.parts = Buffer.isBuffer(bytes) ? [bytes] : bytes;
  }

  /** The bytes as one Buffer of their own (a copy when in pieces), for keeping or parsing. */
  joined(): Buffer {
    return this.parts.length === 1 ? this.parts[0]! : Buffer.concat(this.parts);
  }
}
