// `node -r ts-node/register scripts/temporal-ui-screenshot.ts` (after `node scripts/build.mjs`):
// what an operator sees of a case in the Temporal Web UI, and what the cluster stores.
// On its own stack (scripts/local-stack.ts) it opens a case with a comment, the seller answers
// with a proposal whose comment travels to the workflow as an Update argument, then:
//   1. the raw history (`temporal workflow show --output json`, no codec endpoint) must contain
//      neither comment, in its JSON or in any payload's decoded bytes, and every payload must be
//      `binary/encrypted`;
//   2. the same history read through the worker's codec endpoint must contain the proposal's comment;
//   3. Chromium (puppeteer-core) opens the Web UI on that Update's event, where the UI decodes the
//      input through the codec endpoint, and saves docs/screenshots/temporal-ui-decrypted.png.
// Exits 1 when a check fails. docs/operations.md, "Encrypted workflow payloads".
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import puppeteer from 'puppeteer-core';
import { Client as PgClient } from 'pg';
import { LocalStack, sleep } from './local-stack';

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const OUT = path.resolve(__dirname, '..', 'docs', 'screenshots', 'temporal-ui-decrypted.png');
const CASE_COMMENT = 'Holo foil scratched across the artwork';
const PROPOSAL_COMMENT = 'Refund of 7.50 for the scratched holo';
const run = promisify(execFile);

async function api(base: string, method: string, url: string, token?: string, body?: unknown, form?: string) {
  const res = await fetch(base + url, {
    method,
    redirect: 'manual',
    headers: {
      ...(token ? { Authorization: `Bearer ${token}` } : {}),
      ...(body !== undefined ? { 'Content-Type': 'application/json' } : {}),
      ...(form !== undefined ? { 'Content-Type': 'application/x-www-form-urlencoded' } : {}),
    },
    body: body !== undefined ? JSON.stringify(body) : form,
  });
  const text = await res.text();
  if (res.status >= 400) throw new Error(`${method} ${url} → ${res.status} ${text}`);
  return {
    status: res.status,
    location: res.headers.get('location'),
    body: text ? JSON.parse(text.startsWith('{') || text.startsWith('[') ? text : 'null') : null,
  };
}

/**
 * Every payload (`{metadata, data}`) in a JSON history, except search attributes: those are
 * indexed by the server, so they are never encoded (ids and enums only, docs/operations.md).
 */
function payloads(node: unknown, found: Array<{ metadata: Record<string, string>; data?: string }> = []) {
  if (Array.isArray(node)) node.forEach((n) => payloads(n, found));
  else if (node && typeof node === 'object') {
    const o = node as Record<string, unknown>;
    if (o.metadata && typeof o.metadata === 'object' && 'encoding' in (o.metadata as object)) {
      found.push(o as { metadata: Record<string, string>; data?: string });
    } else for (const [k, v] of Object.entries(o)) if (k !== 'searchAttributes') payloads(v, found);
  }
  return found;
}

const b64 = (s: string | undefined) => Buffer.from(s ?? '', 'base64').toString('latin1');

async function main(): Promise<void> {
  const stack = new LocalStack({ log: (line) => console.log(line) });
  const failures: string[] = [];
  try {
    await stack.start();
    const base = stack.apiUrl;
    const db = new PgClient({ connectionString: stack.databaseUrl });
    await db.connect();
    await db.query(`INSERT INTO catalog_games (urn, name) VALUES ('pokemon', 'Pokémon')`);
    await db.query(`INSERT INTO catalog_series (urn, game_urn, name) VALUES ('pokemon/base', 'pokemon', 'Base')`);
    await db.query(
      `INSERT INTO catalog_sets (urn, series_urn, game_urn, name) VALUES ('pokemon/base/bs', 'pokemon/base', 'pokemon', 'Base Set')`,
    );
    await db.query(
      `INSERT INTO catalog_items (urn, slug, game_urn, series_urn, set_urn, title, name) VALUES ('pokemon/base/bs/4', 'charizard-bs-4', 'pokemon', 'pokemon/base', 'pokemon/base/bs', 'Charizard', 'Charizard')`,
    );
    await db.end();
    const register = async (name: string) =>
      (
        await api(base, 'POST', '/auth/register', undefined, {
          email: `${name}@example.test`,
          username: name,
          password: 'screenshot password 1',
        })
      ).body as { user: { id: string }; accessToken: string };
    const seller = await register('uiseller');
    const buyer = await register('uibuyer');
    await api(base, 'POST', '/seller', seller.accessToken);
    await api(base, 'POST', '/seller/delivery-options', seller.accessToken, {
      name: '2nd class',
      price: 150,
      tracked: false,
      countries: ['GB'],
    });
    const listing = await api(base, 'POST', '/seller/listings', seller.accessToken, {
      urn: 'pokemon/base/bs/4',
      condition: 'NEAR_MINT',
      language: 'en',
      price: 1500,
      quantity: 1,
    });
    const basket = (await api(base, 'GET', '/basket', buyer.accessToken)).body as { id: string };
    await api(base, 'PUT', `/basket/${basket.id}/items/${listing.body.id}`, buyer.accessToken, { quantity: 1 });
    const address = {
      name: 'Ada Buyer',
      line1: '1 Card Street',
      line2: '',
      city: 'London',
      state: '',
      postal_code: 'N1 1AA',
      country: 'GB',
    };
    await api(base, 'PUT', `/basket/${basket.id}/delivery`, buyer.accessToken, { address });
    const checkout = await api(base, 'POST', `/basket/${basket.id}/checkout`, buyer.accessToken, {
      successUrl: 'https://shop.example/thanks',
    });
    const paid = await api(base, 'POST', new URL(checkout.body.url).pathname, undefined, undefined, 'outcome=success');
    const purchaseId = new URL(paid.location!).searchParams.get('purchase')!;
    const purchase = (await api(base, 'GET', `/user/purchases/${purchaseId}`, buyer.accessToken)).body;
    const order = purchase.orders[0];
    const disputed = await api(base, 'PUT', `/user/purchases/${purchaseId}`, buyer.accessToken, {
      action: 'dispute',
      orderId: order.id,
      reason: 'DAMAGED',
      comment: CASE_COMMENT,
      items: [{ id: order.items[0].id, quantity: 1 }],
    });
    const caseId: string = disputed.body.orders[0].cases[0].id;
    const workflowId = `case:${caseId}`;
    // The seller's proposal is an Update on the running workflow (it waits for the start if need be).
    let proposed = false;
    for (let i = 0; i < 30 && !proposed; i += 1) {
      try {
        await api(base, 'PUT', `/seller/cases/${caseId}`, seller.accessToken, {
          action: 'propose',
          type: 'REFUND',
          amount: 750,
          comment: PROPOSAL_COMMENT,
        });
        proposed = true;
      } catch (err) {
        if (!String(err).includes('503')) throw err;
        await sleep(1000);
      }
    }
    console.log(`case ${caseId}: opened with a comment, REFUND proposed`);

    const cli = path.resolve(__dirname, '..', '.venv', 'bin', 'temporal');
    const show = ['workflow', 'show', '--address', stack.temporalAddress, '--workflow-id', workflowId, '--output', 'json'];
    const raw = (await run(cli, show, { maxBuffer: 64 << 20 })).stdout;
    const rawPayloads = payloads(JSON.parse(raw));
    const encodings = new Set(rawPayloads.map((p) => b64(p.metadata.encoding)));
    const leaks = [CASE_COMMENT, PROPOSAL_COMMENT].filter((c) => raw.includes(c) || rawPayloads.some((p) => b64(p.data).includes(c)));
    console.log(
      `raw history: ${rawPayloads.length} payloads, encodings ${[...encodings].join(', ')}; comment text found: ${leaks.length ? leaks.join(' | ') : 'none'}`,
    );
    if (leaks.length) failures.push('the raw history contains comment text');
    if ([...encodings].some((e) => e !== 'binary/encrypted'))
      failures.push(`unencrypted payloads in the raw history: ${[...encodings].join(', ')}`);
    const decoded = (await run(cli, [...show, '--codec-endpoint', stack.codecUrl], { maxBuffer: 64 << 20 })).stdout;
    const readable = payloads(JSON.parse(decoded)).some((p) => b64(p.data).includes(PROPOSAL_COMMENT));
    console.log(`through the codec endpoint: the proposal's comment is ${readable ? 'readable' : 'MISSING'}`);
    if (!readable) failures.push('the decoded history does not contain the proposal comment');

    // The Update's event, opened in the Web UI, which decodes payloads through the codec endpoint.
    const history = JSON.parse(decoded) as { events: Array<{ eventId: string; eventType: string }> };
    const update = history.events.find((e) => e.eventType.includes('UPDATE_ACCEPTED'));
    if (!update) throw new Error('no Update accepted event in the history');
    const [{ runId }] = [
      (
        JSON.parse(
          (await run(cli, ['workflow', 'describe', '--address', stack.temporalAddress, '--workflow-id', workflowId, '--output', 'json']))
            .stdout,
        ) as { workflowExecutionInfo: { execution: { runId: string } } }
      ).workflowExecutionInfo.execution,
    ];
    if (!existsSync(CHROMIUM)) throw new Error(`no Chromium at ${CHROMIUM}`);
    const browser = await puppeteer.launch({
      executablePath: CHROMIUM,
      headless: true,
      args: ['--no-sandbox', '--disable-dev-shm-usage', '--disable-gpu', '--no-first-run', '--disable-extensions'],
    });
    try {
      const page = await browser.newPage();
      await page.setViewport({ width: 1400, height: 1000 });
      const url = `${stack.uiUrl}/namespaces/default/workflows/${encodeURIComponent(workflowId)}/${runId}/history/events/${update.eventId}`;
      // The UI keeps polling, so the network never goes idle: wait for the text instead.
      await page.goto(url, { waitUntil: 'domcontentloaded', timeout: 60_000 });
      await page.waitForFunction(`document.body.innerText.includes(${JSON.stringify(PROPOSAL_COMMENT)})`, { timeout: 60_000 });
      await page.screenshot({ path: OUT, fullPage: false });
      console.log(`Web UI: ${url} shows the decrypted comment; screenshot ${path.relative(process.cwd(), OUT)}`);
    } finally {
      await browser.close();
    }
  } catch (err) {
    failures.push(err instanceof Error ? err.message : String(err));
  } finally {
    await stack.stop(failures.length > 0);
    if (failures.length) console.log(`stack kept in ${stack.dir}`);
  }
  if (failures.length) {
    console.error(`FAILED:\n  ${failures.join('\n  ')}`);
    process.exit(1);
  }
  process.exit(0);
}

void main();
