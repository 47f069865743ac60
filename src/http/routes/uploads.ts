import Joi from '../../joi';
import { readRawBody } from '../raw-body';
import { defineRoute } from '../route';
import { timestamp, idParams, moderationProblem } from '../schemas';
import type { Uploads } from '../../services/uploads';

const IMAGE_TYPES = ['image/png', 'image/jpeg', 'image/webp', 'application/octet-stream'];

/** The services these routes use (their feature module's, src/modules). */
export interface UploadRouteServices {
  uploads: Uploads;
}

export const uploadRoutes = (s: UploadRouteServices) => [
  defineRoute<'createUpload', 'user'>({
    operationId: 'createUpload',
    method: 'post',
    path: '/uploads',
    tag: 'Uploads',
    summary: 'Step 1 of a direct upload: get an upload id and the URL to PUT the image to',
    description:
      'Then `PUT` the bytes to `uploadUrl`, then attach the upload by its id (e.g. `POST /seller/listings/{id}/attachments`). ' +
      'A user may hold a bounded number of unattached uploads and create a bounded number a minute (docs/seller-listings.md); ' +
      'unattached uploads are deleted after a day.',
    auth: 'user',
    responses: {
      201: {
        description: 'The draft upload.',
        schema: Joi.object({
          id: Joi.string().required(),
          uploadUrl: Joi.string().uri().required(),
          maxBytes: Joi.number().integer().required(),
        }),
      },
      409: {
        description: '`upload-quota-reached`: the caller holds as many unattached uploads as allowed (`UPLOAD_MAX_PENDING`, default 50).',
      },
      429: {
        description:
          '`upload-rate-limited`: over `UPLOADS_PER_MINUTE` (default 60) uploads in a minute; `Retry-After` says when to try again.',
      },
    },
    handler: async ({ principal }) => ({ status: 201, body: await s.uploads.create(principal.userId) }),
  }),

  defineRoute<'putUploadBytes', 'user'>({
    operationId: 'putUploadBytes',
    method: 'put',
    path: '/uploads/{id}',
    tag: 'Uploads',
    summary: 'Upload the image bytes of a draft upload (owner only); the upload becomes READY',
    description:
      'The image is decoded within the image budgets and stored re-encoded in its own format without metadata ' +
      '(EXIF with GPS, XMP, IPTC), so `/images/{id}` never serves the original bytes. Of two PUTs racing for one upload ' +
      'exactly one stores its bytes; the other answers 409 `upload-finished`.',
    auth: 'user',
    request: {
      params: idParams,
      rawBody: {
        mediaTypes: IMAGE_TYPES,
        description: 'The image itself: PNG, JPEG or WebP, recognised by its content; at most 10 MB by default.',
      },
    },
    responses: {
      200: {
        description: 'The finished upload.',
        schema: Joi.object({
          id: Joi.string().required(),
          status: Joi.string().valid('DRAFT', 'READY').required(),
          contentType: Joi.string().allow(null).required(),
          byteSize: Joi.number().integer().allow(null).required(),
          createdAt: timestamp.required(),
          finalizedAt: timestamp.allow(null).required(),
        }),
      },
      404: { description: "No such upload of the caller's." },
      409: {
        description:
          "`upload-finished`: the upload already has its bytes. `upload-quota-reached`: the caller's unattached uploads would hold " +
          'more than `UPLOAD_MAX_PENDING_MB` (default 200 MB).',
      },
      413: { description: 'The image is over the size cap.' },
      415: { description: '`unsupported-image-type`: not a PNG, JPEG or WebP image.' },
      422: {
        description:
          '`image-rejected`: the bytes cannot be used; `reasons` lists why (`undecodable`, `type-mismatch`, `too-many-pixels`, ' +
          '`too-many-frames`, `animation-too-large`, `too-many-bytes`). Also `idempotency-key-reused` (no `reasons`).',
        schema: moderationProblem,
      },
      503: { description: '`temporarily-unavailable`: too many images are waiting to be decoded; retry shortly.' },
    },
    handler: async ({ principal, params, ctx }) => {
      const bytes = await readRawBody(ctx, s.uploads.maxBytes);
      return { status: 200, body: await s.uploads.store(principal.userId, params.id, bytes) };
    },
  }),

  defineRoute<'getImage', 'public'>({
    operationId: 'getImage',
    method: 'get',
    path: '/images/{id}',
    tag: 'Uploads',
    summary: 'The bytes of a finished image upload (public)',
    auth: 'public',
    request: { params: idParams },
    responses: {
      200: { description: 'The image.', contentType: 'image/*' },
      404: { description: 'No finished image with that id.' },
    },
    handler: async ({ params }) => {
      const image = await s.uploads.image(params.id);
      // An image id never changes content, so caches may keep it indefinitely.
      return {
        status: 200,
        body: image.bytes,
        contentType: image.contentType,
        headers: { 'Cache-Control': 'public, max-age=31536000, immutable' },
      };
    },
  }),
];
