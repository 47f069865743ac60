import { spawn } from 'node:child_process';
import { mkdirSync, openSync, closeSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { registerSeller } from '../support/api';
import { ROOT } from '../support/env';
import { startStack, type TestStack } from '../support/stack';
import { WebhookReceiver } from '../support/webhook-receiver';

/**
 * Schemathesis against the whole stack (API, worker, Temporal dev server, Postgres), driven by
 * the API's own /openapi.json, as an active seller. Fails on any 5xx or any answer that its
 * operation does not document (status, content type or schema). `npm run fuzz`; the time
 * budget is FUZZ_MAX_TIME seconds (default 200).
 *
 * Schemathesis's own report goes to a log file beside the JUnit report, not to the console: it
 * ends in a pytest-style "=== N warnings in …s ===" banner that log readers take for a pytest run
 * of zero tests. The console gets its totals, or the whole report when the run fails.
 */
const MAX_TIME = Number(process.env.FUZZ_MAX_TIME ?? 200);
const CHECKS = ['not_a_server_error', 'status_code_conformance', 'content_type_conformance', 'response_schema_conformance'];

let stack: TestStack;
let sink: WebhookReceiver;
beforeAll(async () => {
  stack = await startStack();
  sink = await WebhookReceiver.start();
}, 120_000);
afterAll(async () => {
  await sink?.close();
  await stack?.stop();
});

it(
  'finds no server error and no undocumented answer',
  async () => {
    const seller = await registerSeller(stack.api, 'fuzzer');
    const base = stack.api.baseUrl;
    const reportDir = path.join(ROOT, '.data/fuzz');
    mkdirSync(reportDir, { recursive: true });
    const args = [
      'run',
      `${base}/openapi.json`,
      '--url',
      base,
      '-H',
      `Authorization: ${seller.bearer.Authorization}`,
      '--checks',
      CHECKS.join(','),
      '--max-time',
      String(MAX_TIME),
      '--workers',
      '2',
      '--seed',
      process.env.FUZZ_SEED ?? '1',
      '--report',
      'junit',
      '--report-dir',
      reportDir,
    ];
    const logPath = path.join(reportDir, `schemathesis-${new Date().toISOString().replace(/[:.]/g, '')}.log`);
    const logFd = openSync(logPath, 'w');
    const started = Date.now();
    const code = await new Promise<number | null>((resolve) => {
      const st = spawn(path.join(ROOT, '.venv/bin/st'), args, {
        cwd: ROOT,
        env: {
          ...process.env,
          SCHEMATHESIS_HOOKS: path.join(__dirname, 'schemathesis-hooks.py'),
          FUZZ_WEBHOOK_SINK: `${sink.url}/fuzz`,
          NO_COLOR: '1',
        },
        stdio: ['ignore', logFd, logFd],
      });
      st.on('exit', resolve);
    });
    closeSync(logFd);
    const report = readFileSync(logPath, 'utf8');
    const totals = report.split('\n').filter((line) => /^\s*(Selected|Tested|\d+ generated|Seed)\b/.test(line));
    console.log(code === 0 ? `${totals.map((line) => line.trim()).join('\n')}\nfull report: ${logPath}` : report);
    console.log(`schemathesis finished in ${Math.round((Date.now() - started) / 1000)} s with exit code ${code}`);
    expect(code).toBe(0);
  },
  (MAX_TIME + 120) * 1000,
);
