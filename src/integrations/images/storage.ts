import { randomBytes } from 'node:crypto';
import { mkdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';

/**
 * Where uploaded image bytes live. The embedded default is a local directory served by the
 * API (`GET /images/{id}`); object storage implements the same interface in a deployment.
 */
export interface ImageStorage {
  put(id: string, bytes: Buffer): Promise<void>;
  /** The stored bytes, or null when there are none. */
  get(id: string): Promise<Buffer | null>;
  /** Removes the bytes; removing what is not there is not an error. */
  delete(id: string): Promise<void>;
}

/** Ids are UUIDs, never paths: checked so a crafted id cannot leave the directory. */
const SAFE_ID = /^[0-9a-f-]{36}$/;

export class LocalDiskImageStorage implements ImageStorage {
  constructor(private readonly dir: string) {}

  private file(id: string): string {
    if (!SAFE_ID.test(id)) throw new Error(`not an image id: ${id}`);
    return path.join(this.dir, id);
  }

  async put(id: string, bytes: Buffer): Promise<void> {
    await mkdir(this.dir, { recursive: true });
    // Written aside then renamed, so a reader never sees half a file; the aside name is unique,
    // so two writers of one id never rename each other's file.
    const target = this.file(id);
    const part = `${target}.${randomBytes(6).toString('hex')}.part`;
    try {
      await writeFile(part, bytes);
      await rename(part, target);
    } catch (err) {
      await rm(part, { force: true });
      throw err;
    }
  }

  async delete(id: string): Promise<void> {
    await rm(this.file(id), { force: true });
  }

  async get(id: string): Promise<Buffer | null> {
    try {
      return await readFile(this.file(id));
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
      throw err;
    }
  }
}
