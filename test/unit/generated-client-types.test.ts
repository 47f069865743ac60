import { readFileSync } from 'node:fs';
import path from 'node:path';
import ts from 'typescript';

// test/types/generated-client.ts is compiled by `npm run build` against generated/api.d.ts. Here it
// is compiled again, in process, against copies of those types with one thing degraded each, the
// way a generator or a schema change would degrade it: every copy must fail to compile, so the
// program's assertions are known to catch what they claim to.

const ROOT = path.resolve(__dirname, '../..');
const PROGRAM = path.join(ROOT, 'test/types/generated-client.ts');
const API = path.join(ROOT, 'generated/api.d.ts');
const original = readFileSync(API, 'utf8');

const config = ts.getParsedCommandLineOfConfigFile(path.join(ROOT, 'tsconfig.json'), undefined, {
  ...ts.sys,
  onUnRecoverableConfigFileDiagnostic: (d) => {
    throw new Error(ts.flattenDiagnosticMessageText(d.messageText, '\n'));
  },
})!;
let previous: ts.Program | undefined;

/** The program's compile errors with `api.d.ts` as given, as `line: message`. */
function compile(api: string): string[] {
  const host = ts.createCompilerHost(config.options);
  const read = host.getSourceFile.bind(host);
  host.getSourceFile = (file, language, ...rest) =>
    path.resolve(file) === API ? ts.createSourceFile(file, api, language) : read(file, language, ...rest);
  const program = ts.createProgram({ rootNames: [PROGRAM], options: config.options, host, oldProgram: previous });
  previous = program;
  return ts.getPreEmitDiagnostics(program).map((d) => {
    const at =
      d.file && d.start !== undefined
        ? `${path.relative(ROOT, d.file.fileName)}:${d.file.getLineAndCharacterOfPosition(d.start).line + 1}`
        : '';
    return `${at}: ${ts.flattenDiagnosticMessageText(d.messageText, ' ')}`;
  });
}

/** The types with `from` replaced by `to` at its first occurrence after `anchor`. */
function degrade(anchor: string, from: string, to: string): string {
  const start = original.indexOf(anchor);
  const at = original.indexOf(from, start);
  if (start < 0 || at < 0) throw new Error(`generated/api.d.ts has no ${from} after ${anchor}`);
  return original.slice(0, at) + to + original.slice(at + from.length);
}

/** The lines of the program's declaration that starts with `text` (up to the next export). */
function declarationLines(text: string): number[] {
  const lines = readFileSync(PROGRAM, 'utf8').split('\n');
  const first = lines.findIndex((line) => line.startsWith(text));
  const next = lines.findIndex((line, i) => i > first && line.startsWith('export '));
  if (first < 0) throw new Error(`the program has no declaration starting with ${text}`);
  return Array.from({ length: next - first }, (_, i) => first + i + 1);
}

describe('test/types/generated-client.ts', () => {
  it('compiles against the generated types', () => {
    expect(compile(original)).toEqual([]);
  }, 60_000);

  it.each<{ what: string; api: () => string; failsAt: string; mentions?: string }>([
    {
      what: 'a nullable reference (Listing.seller) typed unknown',
      api: () => degrade('        Listing: {', 'seller: components["schemas"]["UserSummary"] | null;', 'seller: unknown;'),
      // `listing.seller?.username` itself no longer compiles.
      failsAt: 'export function sellerName',
    },
    {
      what: 'a webhook payload field (ListingEventData.price) typed any',
      api: () => degrade('        ListingEventData: {', 'price: number;', 'price: any;'),
      failsAt: 'export type PayloadsAreTheServiceTypes',
    },
    {
      what: 'a field of a schema no other check names (Item.rarity) typed unknown',
      api: () => degrade('        Item: {', 'rarity: string;', 'rarity: unknown;'),
      failsAt: 'export type NoUntypedSchemaField',
      // The error names the field.
      mentions: '"components.Item.rarity"',
    },
    {
      what: 'a webhook body (OFFER_EXPIRED) typed unknown',
      api: () =>
        degrade(
          '    offerExpiredWebhook: {',
          '"application/json": components["schemas"]["OfferExpiredEvent"];',
          '"application/json": unknown;',
        ),
      failsAt: 'export type PayloadsAreTheServiceTypes',
    },
    {
      what: 'an event type missing from webhooks (OFFER_EXPIRED renamed)',
      api: () => degrade('export interface webhooks {', '    OFFER_EXPIRED: {', '    OFFER_EXPIRED_OLD: {'),
      failsAt: 'export type EveryEventTypeIsPublished',
    },
  ])(
    'fails to compile when $what',
    ({ api, failsAt, mentions }) => {
      const errors = compile(api());
      const lines = declarationLines(failsAt);
      const there = errors.filter((e) => lines.some((line) => e.startsWith(`test/types/generated-client.ts:${line}: `)));
      expect([errors.length > 0, there.length > 0, errors]).toEqual([true, true, errors]);
      if (mentions) expect(there.join('\n')).toContain(mentions);
    },
    60_000,
  );
});
