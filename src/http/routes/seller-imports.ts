import Joi from '../../joi';
import { IMPORT_COLUMNS, REQUIRED_COLUMNS } from '../../services/imports/csv-rows';
import { readRawText } from '../raw-body';
import { defineRoute } from '../route';
import { pageOf } from '../../services/paging';
import { timestamp, idParams, offsetPage } from '../schemas';
import type { ListingImports } from '../../services/imports/listing-imports';

const importView = Joi.object({
  id: Joi.string().required(),
  status: Joi.string().valid('PENDING', 'RUNNING', 'COMPLETED', 'FAILED').required(),
  totalRows: Joi.number().integer().required(),
  processedRows: Joi.number().integer().required(),
  createdCount: Joi.number().integer().required(),
  errorCount: Joi.number().integer().required().description('Rows that had at least one error.'),
  failure: Joi.string().allow(null).required(),
  createdAt: timestamp.required(),
  finishedAt: timestamp.allow(null).required(),
}).meta({ component: 'ListingImport' });
/** The services these routes use (their feature module's, src/modules). */
export interface SellerImportRouteServices {
  imports: ListingImports;
}

export const sellerImportRoutes = (s: SellerImportRouteServices, { maxBytes, maxRows }: { maxBytes: number; maxRows: number }) => [
  defineRoute<'createListingImport', 'seller'>({
    operationId: 'createListingImport',
    method: 'post',
    path: '/seller/imports',
    tag: 'Seller imports',
    summary: 'Upload a CSV of listings; it is imported in the background',
    description:
      `Header row required. Columns: ${IMPORT_COLUMNS.join(', ')} (required: ${REQUIRED_COLUMNS.join(', ')}); ` +
      'cells follow the rules of `POST /seller/listings`. Follow progress with `GET /seller/imports/{id}` and row errors with `/errors`.',
    auth: 'seller',
    request: { rawBody: { mediaTypes: ['text/csv'], description: `A UTF-8 CSV file, at most ${maxBytes} bytes.` } },
    responses: {
      202: { description: 'Accepted: the import, PENDING.', schema: importView },
      400: {
        description:
          '`import-csv-invalid`: the header is missing required columns or has unknown ones. ' +
          '`validation-failed`: the file holds a NUL character (its line is named). ' +
          `\`import-too-many-rows\`: more than ${maxRows} non-empty lines after the header (\`IMPORT_MAX_ROWS\`).`,
      },
      413: { description: 'The file is over the size cap.' },
    },
    handler: async ({ principal, ctx }) => {
      const csv = await readRawText(ctx, maxBytes);
      const created = await s.imports.create(principal.userId, csv);
      return { status: 202, body: created, headers: { Location: `/seller/imports/${created.id}` } };
    },
  }),

  defineRoute<'getListingImport', 'seller'>({
    operationId: 'getListingImport',
    method: 'get',
    path: '/seller/imports/{id}',
    tag: 'Seller imports',
    summary: 'Progress and counts of an import',
    auth: 'seller',
    request: { params: idParams },
    responses: { 200: { description: 'The import.', schema: importView }, 404: { description: "No such import of the caller's." } },
    handler: async ({ principal, params }) => ({ status: 200, body: await s.imports.get(principal.userId, params.id) }),
  }),

  defineRoute<'listListingImportErrors', 'seller'>({
    operationId: 'listListingImportErrors',
    method: 'get',
    path: '/seller/imports/{id}/errors',
    tag: 'Seller imports',
    summary: 'Row errors of an import, in row order',
    description: '`row` counts the header as row 1 (the row number a spreadsheet shows); `column` names the offending column.',
    auth: 'seller',
    request: {
      params: idParams,
      query: Joi.object({ page: Joi.number().integer().min(1).default(1), size: Joi.number().integer().min(1).max(500).default(50) }),
    },
    responses: {
      200: {
        description: 'A page of errors and their total (the offset envelope; pages up to 500 errors).',
        schema: offsetPage(Joi.object({ row: Joi.number().integer(), column: Joi.string(), message: Joi.string() })).meta({
          component: 'ListingImportErrorPage',
        }),
      },
      404: { description: "No such import of the caller's." },
    },
    handler: async ({ principal, params, query }) => {
      const { total, errors } = await s.imports.errors(principal.userId, params.id, query.page, query.size);
      return { status: 200, body: pageOf(errors, total, query) };
    },
  }),
];
