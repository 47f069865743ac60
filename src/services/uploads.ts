import type { DataSource } from 'typeorm';
import { Upload } from '../db/entities';
import { detectImageType, type ImageType } from '../integrations/images/image-type';
import type { ImageStorage } from '../integrations/images/storage';
import { newId } from '../ids';
import { conflict, DomainError, invalid, notFound } from './errors';

export interface UploadsOptions {
  storage: ImageStorage;
  maxBytes: number;
  /** Public base URL of the API: upload and image URLs are absolute. */
  publicBaseUrl: string;
}

export interface UploadView {
  id: string;
  status: 'DRAFT' | 'READY';
  contentType: string | null;
  byteSize: number | null;
  createdAt: Date;
  finalizedAt: Date | null;
}

const view = (u: Upload): UploadView => ({
  id: u.id,
  status: u.status,
  contentType: u.contentType,
  byteSize: u.byteSize,
  createdAt: u.createdAt,
  finalizedAt: u.finalizedAt,
});

/**
 * Two-step direct uploads, shared by listing, message and case attachments:
 * 1. `create` gives an upload id and the URL to PUT the bytes to (status DRAFT);
 * 2. `store` takes the bytes (owner only, an accepted image format, within the size cap) and
 *    marks the upload READY; an area then attaches it by id, checking it is READY and the caller's.
 * Images are public by id once READY (`image`).
 */
export class Uploads {
  constructor(
    private readonly db: DataSource,
    private readonly options: UploadsOptions,
  ) {}

  get maxBytes(): number {
    return this.options.maxBytes;
  }

  imageUrl(id: string): string {
    return `${this.options.publicBaseUrl}/images/${id}`;
  }

  async create(ownerId: string): Promise<{ id: string; uploadUrl: string; maxBytes: number }> {
    const id = newId();
    await this.db.getRepository(Upload).insert({ id, ownerId, status: 'DRAFT' });
    return { id, uploadUrl: `${this.options.publicBaseUrl}/uploads/${id}`, maxBytes: this.options.maxBytes };
  }

  async store(ownerId: string, id: string, bytes: Buffer): Promise<UploadView> {
    const upload = await this.db.getRepository(Upload).findOneBy({ id, ownerId });
    if (!upload) throw notFound('Upload');
    if (upload.status !== 'DRAFT') throw conflict('upload-finished', 'This upload already has its bytes; create a new upload.');
    const type: ImageType | null = detectImageType(bytes);
    if (!type) {
      throw new DomainError('unsupported-media-type', 'unsupported-image-type', 'The bytes are not a PNG, JPEG or WebP image.');
    }
    await this.options.storage.put(id, bytes);
    const result = await this.db
      .getRepository(Upload)
      .update({ id, ownerId, status: 'DRAFT' }, { status: 'READY', contentType: type, byteSize: bytes.length, finalizedAt: new Date() });
    if (!result.affected) throw conflict('upload-finished', 'This upload already has its bytes; create a new upload.');
    return view(await this.db.getRepository(Upload).findOneByOrFail({ id }));
  }

  /** The bytes of the owner's READY upload, or null when it is unknown, another's or a draft. */
  async readyBytes(ownerId: string, id: string): Promise<{ bytes: Buffer; contentType: string } | null> {
    const upload = await this.db.getRepository(Upload).findOneBy({ id, ownerId, status: 'READY' });
    const bytes = upload ? await this.options.storage.get(id) : null;
    return upload && bytes ? { bytes, contentType: upload.contentType! } : null;
  }

  /** The bytes of the owner's finished upload; a draft, another user's or an unknown id is refused with 400. */
  async ownReadyBytes(ownerId: string, id: string, field: string): Promise<Buffer> {
    const ready = await this.readyBytes(ownerId, id);
    if (!ready) {
      throw invalid('upload-not-ready', 'Give the id of one of your finished uploads.', [
        { in: 'body', field, message: `"${field}" must be the id of a finished upload of yours` },
      ]);
    }
    return ready.bytes;
  }

  /** Stores bytes the service made (a resized avatar, say) as a new READY image of the owner; returns its id. */
  async storeDerived(ownerId: string, bytes: Buffer, contentType: ImageType): Promise<string> {
    const id = newId();
    await this.options.storage.put(id, bytes);
    await this.db
      .getRepository(Upload)
      .insert({ id, ownerId, status: 'READY', contentType, byteSize: bytes.length, finalizedAt: new Date() });
    return id;
  }

  /**
   * Replaces a READY upload's bytes with a cleaned version of the same picture (metadata
   * stripped), so its image URL never serves the original.
   */
  async replaceBytes(id: string, bytes: Buffer, contentType: ImageType): Promise<void> {
    await this.options.storage.put(id, bytes);
    await this.db.getRepository(Upload).update({ id, status: 'READY' }, { contentType, byteSize: bytes.length });
  }

  /** A READY image's bytes and type; drafts and unknown ids are not found. */
  async image(id: string): Promise<{ bytes: Buffer; contentType: string }> {
    const upload = await this.db.getRepository(Upload).findOneBy({ id, status: 'READY' });
    const bytes = upload ? await this.options.storage.get(id) : null;
    if (!upload || !bytes) throw notFound('Image');
    return { bytes, contentType: upload.contentType! };
  }
}
