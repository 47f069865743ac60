import Joi from 'joi';
import { readRawBody } from '../raw-body';
import { defineRoute } from '../route';
import { timestamp, idParams, type IdParams } from '../schemas';
import type { Services } from '../services';

type None = Record<string, never>;

const IMAGE_TYPES = ['image/png', 'image/jpeg', 'image/webp', 'application/octet-stream'];

export const uploadRoutes = (s: Services) => [
  defineRoute<None, None, undefined, 'user'>({
    operationId: 'createUpload',
    method: 'post',
    path: '/uploads',
    tag: 'Uploads',
    summary: 'Step 1 of a direct upload: get an upload id and the URL to PUT the image to',
    description: 'Then `PUT` the bytes to `uploadUrl`, then attach the upload by its id (e.g. `POST /seller/listings/{id}/attachments`).',
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
    },
    handler: async ({ principal }) => ({ status: 201, body: await s.uploads.create(principal.userId) }),
  }),

  defineRoute<IdParams, None, undefined, 'user'>({
    operationId: 'putUploadBytes',
    method: 'put',
    path: '/uploads/{id}',
    tag: 'Uploads',
    summary: 'Upload the image bytes of a draft upload (owner only); the upload becomes READY',
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
      409: { description: '`upload-finished`: the upload already has its bytes.' },
      413: { description: 'The image is over the size cap.' },
      415: { description: '`unsupported-image-type`: not a PNG, JPEG or WebP image.' },
    },
    handler: async ({ principal, params, ctx }) => {
      const bytes = await readRawBody(ctx, s.uploads.maxBytes);
      return { status: 200, body: await s.uploads.store(principal.userId, params.id, bytes) };
    },
  }),

  defineRoute<IdParams, None, undefined, 'public'>({
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
