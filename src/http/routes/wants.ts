import Joi from '../../joi';
import type { WantsExport } from '../../services/wants/wants-export';
import type { WantsImportRequest, WantsImports } from '../../services/wants/wants-import';
import { listName, MAX_WANTS_LINES, MAX_WANTS_LISTS, wantsLineInput, wantsLinePatch } from '../../services/wants/line-input';
import { WANTS_CSV_COLUMNS } from '../../services/wants/wants-csv';
import type { WantsLists } from '../../services/wants/wants-lists';
import { CONDITIONS } from '../../services/listings/listing-input';
import { defineRoute } from '../route';
import { idParams, offsetPage, orNull, pence, timestamp } from '../schemas';
import { pageQuery } from './discover-common';

/** The services these routes use (the wants module's, src/modules/wants.ts). */
export interface WantsRouteServices {
  lists: WantsLists;
  imports: WantsImports;
  exports: WantsExport;
}

const TAG = 'Wants lists';
const NOT_FOUND = { description: "No such list (or line), or not the caller's." };

const lineParams = Joi.object({ id: Joi.string().uuid().required(), lineId: Joi.string().uuid().required() });

const wantsList = Joi.object({
  id: Joi.string().required(),
  name: Joi.string().required(),
  lineCount: Joi.number().integer().min(0).max(MAX_WANTS_LINES).required(),
  createdAt: timestamp.required(),
  updatedAt: timestamp.required().description('The last change to the list or one of its lines.'),
}).meta({ component: 'WantsList' });

const wantsLine = Joi.object({
  id: Joi.string().required(),
  urn: Joi.string().allow(null).required().description('The one item wanted; null for a card line.'),
  card: orNull(
    Joi.object({ game: Joi.string().required(), name: Joi.string().required().description("The catalog's spelling.") }).meta({
      component: 'WantedCardView',
    }),
  )
    .required()
    .description('A card by name within a game (any printing); null for an item line.'),
  quantity: Joi.number().integer().min(1).max(99).required(),
  minCondition: Joi.string()
    .valid(...CONDITIONS)
    .allow(null)
    .required(),
  languages: Joi.array().items(Joi.string()).allow(null).required(),
  variants: Joi.array()
    .items(Joi.object({ name: Joi.string().required(), value: Joi.string().required() }))
    .allow(null)
    .required(),
  maxPrice: pence.allow(null).required().description('Pence per unit.'),
  available: Joi.number().integer().min(0).required().description('Units on sale now that fit the line, within `maxPrice`.'),
  lowestPrice: pence.allow(null).required().description('The lowest unit price among them (pence); null when none.'),
  createdAt: timestamp.required(),
  updatedAt: timestamp.required(),
}).meta({ component: 'WantsLine' });

const nameBody = (example: string) => Joi.object({ name: listName.required() }).example({ name: example });

const importBody = Joi.object<WantsImportRequest>({
  format: Joi.string().valid('decklist', 'csv').required(),
  text: Joi.string().allow('').max(200_000).required().description('The deck list or the CSV, as text.'),
  game: Joi.string()
    .trim()
    .min(1)
    .max(300)
    .description("A deck list's game (its URN); by default the catalog's only game. Not used by a CSV, whose rows name theirs."),
})
  .example({ format: 'decklist', text: '// Fire deck\n4 Charizard\n2x Pikachu [Jungle]\n', game: 'pokemon' })
  .example({
    format: 'csv',
    text: `${WANTS_CSV_COLUMNS.join(',')}\npokemon/base/base1/4,,,1,NEAR_MINT,en,,30000\n,pokemon,Pikachu,4,GOOD,en;de,finish=holo,\n`,
  });

const importResult = Joi.object({
  imported: Joi.number().integer().min(0).required(),
  lines: Joi.array().items(wantsLine).required().description('The lines added, in the order of the text.'),
  unresolved: Joi.array()
    .items(
      Joi.object({
        lineNumber: Joi.number().integer().min(1).required().description('Line of the text, counted from 1 (a CSV header is line 1).'),
        text: Joi.string().allow('').required(),
        reason: Joi.string().required(),
      }).meta({ component: 'WantsImportUnresolved' }),
    )
    .required()
    .description('Lines of the text that became no wants line, and why.'),
}).meta({ component: 'WantsImportResult' });

export const wantsRoutes = (s: WantsRouteServices) => [
  defineRoute<'listWantsLists', 'user'>({
    operationId: 'listWantsLists',
    method: 'get',
    path: '/user/wants',
    tag: TAG,
    summary: "The caller's wants lists, oldest first",
    auth: 'user',
    request: { query: pageQuery },
    responses: { 200: { description: 'One page of lists.', schema: offsetPage(wantsList).meta({ component: 'WantsListPage' }) } },
    handler: async ({ principal, query }) => ({ status: 200, body: await s.lists.list(principal.userId, query) }),
  }),

  defineRoute<'createWantsList', 'user'>({
    operationId: 'createWantsList',
    method: 'post',
    path: '/user/wants',
    tag: TAG,
    summary: 'Create a wants list',
    description: `At most ${MAX_WANTS_LISTS} lists per user; names are unique among the caller's lists.`,
    auth: 'user',
    request: { body: nameBody('Fire deck') },
    responses: {
      201: { description: 'The new, empty list.', schema: wantsList },
      409: { description: '`wants-list-limit-reached` or `wants-list-name-taken`.' },
    },
    handler: async ({ principal, body }) => ({ status: 201, body: await s.lists.create(principal.userId, body.name) }),
  }),

  defineRoute<'getWantsList', 'user'>({
    operationId: 'getWantsList',
    method: 'get',
    path: '/user/wants/{id}',
    tag: TAG,
    summary: 'One of the caller’s wants lists',
    auth: 'user',
    request: { params: idParams },
    responses: { 200: { description: 'The list.', schema: wantsList }, 404: NOT_FOUND },
    handler: async ({ principal, params }) => ({ status: 200, body: await s.lists.get(principal.userId, params.id) }),
  }),

  defineRoute<'renameWantsList', 'user'>({
    operationId: 'renameWantsList',
    method: 'patch',
    path: '/user/wants/{id}',
    tag: TAG,
    summary: 'Rename a wants list',
    auth: 'user',
    request: { params: idParams, body: nameBody('Water deck') },
    responses: {
      200: { description: 'The list.', schema: wantsList },
      404: NOT_FOUND,
      409: { description: '`wants-list-name-taken`.' },
    },
    handler: async ({ principal, params, body }) => ({ status: 200, body: await s.lists.rename(principal.userId, params.id, body.name) }),
  }),

  defineRoute<'deleteWantsList', 'user'>({
    operationId: 'deleteWantsList',
    method: 'delete',
    path: '/user/wants/{id}',
    tag: TAG,
    summary: 'Delete a wants list and its lines',
    auth: 'user',
    request: { params: idParams },
    responses: { 204: { description: 'Deleted.' }, 404: NOT_FOUND },
    handler: async ({ principal, params }) => {
      await s.lists.remove(principal.userId, params.id);
      return { status: 204 };
    },
  }),

  defineRoute<'listWantsLines', 'user'>({
    operationId: 'listWantsLines',
    method: 'get',
    path: '/user/wants/{id}/lines',
    tag: TAG,
    summary: "A wants list's lines, oldest first, with what is on sale for each",
    description:
      '`available` and `lowestPrice` count the live listings that fit each line now (docs/wants.md, "What fits a line"), computed for the page in one statement.',
    auth: 'user',
    request: { params: idParams, query: pageQuery },
    responses: {
      200: { description: 'One page of lines.', schema: offsetPage(wantsLine).meta({ component: 'WantsLinePage' }) },
      404: NOT_FOUND,
    },
    handler: async ({ principal, params, query }) => ({ status: 200, body: await s.lists.lines(principal.userId, params.id, query) }),
  }),

  defineRoute<'addWantsLine', 'user'>({
    operationId: 'addWantsLine',
    method: 'post',
    path: '/user/wants/{id}/lines',
    tag: TAG,
    summary: 'Add a line: one catalog item (`urn`) or a card by name within a game (`card`)',
    description: `At most ${MAX_WANTS_LINES} lines per list. The item, the game and the card name must be in the catalog.`,
    auth: 'user',
    request: { params: idParams, body: wantsLineInput },
    responses: {
      201: { description: 'The new line.', schema: wantsLine },
      400: { description: '`wants-card-unknown` (`errors` names the field) or invalid fields.' },
      404: NOT_FOUND,
      409: { description: '`wants-line-limit-reached`.' },
    },
    handler: async ({ principal, params, body }) => ({ status: 201, body: await s.lists.addLine(principal.userId, params.id, body) }),
  }),

  defineRoute<'updateWantsLine', 'user'>({
    operationId: 'updateWantsLine',
    method: 'patch',
    path: '/user/wants/{id}/lines/{lineId}',
    tag: TAG,
    summary: 'Change some fields of a line',
    description: 'Absent fields keep their value; `null` clears an option. Giving `urn` or `card` makes the line that kind.',
    auth: 'user',
    request: { params: lineParams, body: wantsLinePatch },
    responses: {
      200: { description: 'The line.', schema: wantsLine },
      400: { description: '`wants-card-unknown` (`errors` names the field) or invalid fields.' },
      404: NOT_FOUND,
    },
    handler: async ({ principal, params, body }) => ({
      status: 200,
      body: await s.lists.updateLine(principal.userId, params.id, params.lineId, body),
    }),
  }),

  defineRoute<'deleteWantsLine', 'user'>({
    operationId: 'deleteWantsLine',
    method: 'delete',
    path: '/user/wants/{id}/lines/{lineId}',
    tag: TAG,
    summary: 'Delete a line',
    auth: 'user',
    request: { params: lineParams },
    responses: { 204: { description: 'Deleted.' }, 404: NOT_FOUND },
    handler: async ({ principal, params }) => {
      await s.lists.removeLine(principal.userId, params.id, params.lineId);
      return { status: 204 };
    },
  }),

  defineRoute<'importWantsLines', 'user'>({
    operationId: 'importWantsLines',
    method: 'post',
    path: '/user/wants/{id}/import',
    tag: TAG,
    summary: 'Add lines from a deck list or a CSV',
    description:
      'Deck list: one card per line (`4 Charizard`, `4x Charizard`, `2 Pikachu [Jungle]` for that set’s printing); blank lines and `//` or `#` comments are skipped. ' +
      `CSV: the export's format (header \`${WANTS_CSV_COLUMNS.join(',')}\`). ` +
      'Lines that resolve are added in one transaction, the others reported in `unresolved` by line number; ' +
      `when the list would exceed ${MAX_WANTS_LINES} lines nothing is added. See docs/wants.md.`,
    auth: 'user',
    request: { params: idParams, body: importBody },
    responses: {
      200: { description: 'What was added and what was not.', schema: importResult },
      400: { description: '`import-csv-invalid` (the CSV header), `wants-card-unknown` (`game`), or `validation-failed`.' },
      404: NOT_FOUND,
      409: { description: '`wants-line-limit-reached`: nothing was imported.' },
    },
    handler: async ({ principal, params, body }) => ({ status: 200, body: await s.imports.import(principal.userId, params.id, body) }),
  }),

  defineRoute<'exportWantsList', 'user'>({
    operationId: 'exportWantsList',
    method: 'get',
    path: '/user/wants/{id}/export',
    tag: TAG,
    summary: 'A wants list as CSV, in the format the import reads',
    auth: 'user',
    request: { params: idParams },
    responses: {
      200: {
        description: `CSV with the header \`${WANTS_CSV_COLUMNS.join(',')}\`, one row per line, oldest first.`,
        contentType: 'text/csv',
      },
      404: NOT_FOUND,
    },
    handler: async ({ principal, params }) => {
      const exported = await s.exports.csv(principal.userId, params.id);
      return {
        status: 200,
        body: exported.csv,
        contentType: 'text/csv; charset=utf-8',
        headers: { 'Content-Disposition': `attachment; filename="wants-${params.id}.csv"` },
      };
    },
  }),
];
