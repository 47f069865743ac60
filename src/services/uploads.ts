import type { DataSource, EntityManager } from 'typeorm';
import { Upload } from '../db/entities';
import { detectImageType, type ImageType } from '../integrations/images/image-type';
import { ImageQueueFull, type ImageProcessor } from '../integrations/images/processor';
import type { ImageStorage } from '../integrations/images/storage';
import { newId } from '../ids';
import { conflict, DomainError, notFound, invalid, unavailable } from './errors';

export interface UploadQuota {
  /** Unattached uploads (drafts included) one user may hold. */
  maxPending: number;
  /** Bytes of unattached uploads one user may hold. */
  maxPendingBytes: number;
  /** Uploads one user may create in a minute. */
  perMinute: number;
}

export const DEFAULT_UPLOAD_QUOTA: UploadQuota = { maxPending: 50, maxPendingBytes: 200 * 1024 * 1024, perMinute: 60 };

export interface UploadsOptions {
  storage: ImageStorage;
  maxBytes: number;
  /** Public base URL of the API: upload and image URLs are absolute. */
  publicBaseUrl: string;
  /** Where uploaded images are decoded and stripped of their metadata. */
  images: ImageProcessor;
  quota?: UploadQuota;
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
 * An upload is attached when something shows it: a listing, case, message or shipment
 * attachment, or the owner's avatar or cover (a derived image, referenced by its URL). Every
 * other upload of a user counts against their quota, and is collected once old enough.
 */
export const UNATTACHED = `
      NOT EXISTS (SELECT 1 FROM listing_attachments a WHERE a.image_id = u.id::text)
  AND NOT EXISTS (SELECT 1 FROM case_attachments a WHERE a.id = u.id)
  AND NOT EXISTS (SELECT 1 FROM message_attachments a WHERE a.image_id = u.id)
  AND NOT EXISTS (SELECT 1 FROM shipment_attachments a WHERE a.image_id = u.id)
  AND NOT EXISTS (SELECT 1 FROM users x WHERE x.id = u.owner_id AND u.id::text IN (right(x.avatar_url, 36), right(x.cover_url, 36)))`;

const finished = () => conflict('upload-finished', 'This upload already has its bytes; create a new upload.');

/**
 * Two-step direct uploads, shared by listing, message and case attachments:
 * 1. `create` gives an upload id and the URL to PUT the bytes to (status DRAFT), within the
 *    caller's quota and rate;
 * 2. `store` takes the bytes (owner only, an accepted image format, within the size cap and the
 *    image budgets), decodes them and keeps them re-encoded without metadata, and marks the
 *    upload READY; an area then attaches it by id, checking it is READY and the caller's.
 * Images are public by id once READY (`image`), so no READY image ever carries EXIF or GPS.
 */
export class Uploads {
  private readonly quota: UploadQuota;

  constructor(
    private readonly db: DataSource,
    private readonly options: UploadsOptions,
  ) {
    this.quota = options.quota ?? DEFAULT_UPLOAD_QUOTA;
  }

  get maxBytes(): number {
    return this.options.maxBytes;
  }

  get images(): ImageProcessor {
    return this.options.images;
  }

  imageUrl(id: string): string {
    return `${this.options.publicBaseUrl}/images/${id}`;
  }

  async create(ownerId: string): Promise<{ id: string; uploadUrl: string; maxBytes: number }> {
    const id = newId();
    await this.db.transaction(async (tx) => {
      await lockOwner(tx, ownerId);
      const [{ recent, retryAfter }] = (await tx.query(
        `SELECT count(*)::int AS recent, ceil(extract(epoch FROM min(created_at) + interval '1 minute' - now()))::int AS "retryAfter"
           FROM uploads WHERE owner_id = $1 AND created_at > now() - interval '1 minute'`,
        [ownerId],
      )) as [{ recent: number; retryAfter: number | null }];
      if (recent >= this.quota.perMinute) {
        throw new DomainError(
          'rate-limited',
          'upload-rate-limited',
          `At most ${this.quota.perMinute} uploads a minute; try again shortly.`,
          {
            retryAfter: Math.max(1, retryAfter ?? 60),
          },
        );
      }
      const [{ pending }] = (await tx.query(`SELECT count(*)::int AS pending FROM uploads u WHERE u.owner_id = $1 AND ${UNATTACHED}`, [
        ownerId,
      ])) as [{ pending: number }];
      if (pending >= this.quota.maxPending) throw quotaReached(`At most ${this.quota.maxPending} uploads may wait unattached`);
      await tx.getRepository(Upload).insert({ id, ownerId, status: 'DRAFT' });
    });
    return { id, uploadUrl: `${this.options.publicBaseUrl}/uploads/${id}`, maxBytes: this.options.maxBytes };
  }

  /**
   * Stores the bytes of a draft. The image is decoded and cleaned first, outside any
   * transaction; then, under the upload's row lock, the draft is checked again, the clean bytes
   * written and the row made READY, so of two PUTs racing for one upload exactly one stores its
   * bytes and the other gets 409 `upload-finished`.
   */
  async store(ownerId: string, id: string, bytes: Buffer): Promise<UploadView> {
    const upload = await this.db.getRepository(Upload).findOneBy({ id, ownerId });
    if (!upload) throw notFound('Upload');
    if (upload.status !== 'DRAFT') throw finished();
    const type: ImageType | null = detectImageType(bytes);
    if (!type) {
      throw new DomainError('unsupported-media-type', 'unsupported-image-type', 'The bytes are not a PNG, JPEG or WebP image.');
    }
    const image = await this.decode(bytes);
    if (!image.clean) {
      throw new DomainError('unprocessable', 'image-rejected', 'The image cannot be used; see `reasons`.', { reasons: image.reasons });
    }
    const clean = image.clean;
    await this.db.transaction(async (tx) => {
      const [row]: Array<{ status: string }> = await tx.query(`SELECT status FROM uploads WHERE id = $1 AND owner_id = $2 FOR UPDATE`, [
        id,
        ownerId,
      ]);
      if (!row) throw notFound('Upload');
      if (row.status !== 'DRAFT') throw finished();
      const [{ pendingBytes }] = (await tx.query(
        `SELECT coalesce(sum(u.byte_size), 0) AS "pendingBytes" FROM uploads u WHERE u.owner_id = $1 AND u.status = 'READY' AND ${UNATTACHED}`,
        [ownerId],
      )) as [{ pendingBytes: string }];
      if (Number(pendingBytes) + clean.length > this.quota.maxPendingBytes) {
        throw quotaReached(`Unattached uploads may hold at most ${Math.round(this.quota.maxPendingBytes / 1048576)} MB`);
      }
      await this.options.storage.put(id, clean);
      await tx
        .getRepository(Upload)
        .update({ id }, { status: 'READY', contentType: image.type!, byteSize: clean.length, finalizedAt: new Date() });
    });
    return view(await this.db.getRepository(Upload).findOneByOrFail({ id }));
  }

  /** Decodes through the process's image processor; a full queue is 503, never an unbounded wait. */
  private async decode(bytes: Buffer) {
    try {
      return await this.options.images.clean(bytes);
    } catch (err) {
      if (err instanceof ImageQueueFull) throw unavailable('Too many images are being processed; try again shortly.', { cause: err });
      throw err;
    }
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

  /** A READY image's bytes and type; drafts and unknown ids are not found. */
  async image(id: string): Promise<{ bytes: Buffer; contentType: string }> {
    const upload = await this.db.getRepository(Upload).findOneBy({ id, status: 'READY' });
    const bytes = upload ? await this.options.storage.get(id) : null;
    if (!upload || !bytes) throw notFound('Image');
    return { bytes, contentType: upload.contentType! };
  }
}

/** One user's quota checks in turn: two uploads created at once cannot both take the last place. */
const lockOwner = (tx: EntityManager, ownerId: string) =>
  tx.query(`SELECT pg_advisory_xact_lock(hashtextextended('uploads:' || $1, 0))`, [ownerId]);

const quotaReached = (what: string) =>
  conflict('upload-quota-reached', `${what}; attach or wait for older uploads to be collected before uploading more.`);
