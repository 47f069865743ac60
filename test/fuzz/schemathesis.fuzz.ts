import { spawn } from 'node:child_process';
import { mkdirSync, openSync, closeSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { registerSeller, registerUser, type TestUser } from '../support/api';
import { ROOT } from '../support/env';
import { startStack, type TestStack } from '../support/stack';
import { WebhookReceiver } from '../support/webhook-receiver';

/**
 * Schemathesis against the whole stack (API, worker, Temporal dev server, Postgres), driven by
 * the API's own /openapi.json, every phase (examples, coverage, fuzzing, stateful). `npm run fuzz`.
 * By default, as an active seller, failing on any 5xx or any answer that its operation does not
 * document (status, content type or schema). Switches (docs/openapi.md, "Fuzzing"):
 * - FUZZ_MAX_TIME: time budget in seconds (default 200, what CI spends);
 * - FUZZ_CHECKS: `all`, or a comma-separated list of schemathesis checks (default the four above);
 * - FUZZ_ROLE: `seller` (default) or `operator` (a user with the operator role, not a seller);
 * - FUZZ_SEED: hypothesis seed (default 1).
 *
 * `positive_data_acceptance` takes 404 and 409 as right answers (schemathesis's default): a
 * generated id names nothing, a generated state transition is often not allowed from the state the
 * resource is in. Every such answer is recorded by the hooks and summarised (operation, status,
 * problem type) in the console and in `accepted-<role>.json` beside the report, to be read.
 *
 * Schemathesis's own report goes to a log file beside the JUnit report, not to the console: it
 * ends in a pytest-style "=== N warnings in …s ===" banner that log readers take for a pytest run
 * of zero tests. The console gets its totals, or the whole report when the run fails.
 */
const MAX_TIME = Number(process.env.FUZZ_MAX_TIME ?? 200);
const DEFAULT_CHECKS = ['not_a_server_error', 'status_code_conformance', 'content_type_conformance', 'response_schema_conformance'];
const CHECKS = process.env.FUZZ_CHECKS || DEFAULT_CHECKS.join(',');
const ROLE = process.env.FUZZ_ROLE ?? 'seller';
if (ROLE !== 'seller' && ROLE !== 'operator') throw new Error(`FUZZ_ROLE must be seller or operator, not ${ROLE}`);

/** The caller the whole run acts as: an active seller, or an operator (docs/sellers-operators.md). */
async function caller(): Promise<TestUser> {
  if (ROLE === 'seller') return registerSeller(stack.api, 'fuzzer');
  const operator = await registerUser(stack.api, 'fuzzop');
  await stack.api.services.operatorRoles.grant(operator.username, 'fuzz');
  return operator;
}

interface AcceptedAnswer {
  operation: string;
  status: number;
  type: string | null;
  phase: string;
}

/** The recorded 404/409 answers to valid requests, counted per operation, status and problem type. */
function summariseAccepted(ndjsonPath: string): { operation: string; status: number; type: string | null; count: number }[] {
  let lines: string[];
  try {
    lines = readFileSync(ndjsonPath, 'utf8').split('\n').filter(Boolean);
  } catch {
    return [];
  }
  const counts = new Map<string, { operation: string; status: number; type: string | null; count: number }>();
  for (const line of lines) {
    const answer = JSON.parse(line) as AcceptedAnswer;
    const key = `${answer.operation} ${answer.status} ${answer.type}`;
    const entry = counts.get(key) ?? { operation: answer.operation, status: answer.status, type: answer.type, count: 0 };
    entry.count += 1;
    counts.set(key, entry);
  }
  return [...counts.values()].sort((a, b) => a.operation.localeCompare(b.operation) || a.status - b.status);
}

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
    const user = await caller();
    const base = stack.api.baseUrl;
    // The application the authorization pages are exercised with (the hooks put it into valid requests).
    const redirectUri = 'https://fuzz-client.example/callback';
    const { client: oauthClient } = await stack.api.services.oauthApps.register({
      name: 'Fuzz client',
      redirectUris: [redirectUri],
      confidential: false,
    });
    const reportDir = path.join(ROOT, '.data/fuzz');
    mkdirSync(reportDir, { recursive: true });
    const args = [
      '--config-file',
      path.join(__dirname, 'schemathesis.toml'),
      'run',
      `${base}/openapi.json`,
      '--url',
      base,
      '-H',
      `Authorization: ${user.bearer.Authorization}`,
      '--checks',
      CHECKS,
      '--phases',
      'examples,coverage,fuzzing,stateful',
      // The service refuses NUL in every string (docs/conventions.md, "Text"), which a JSON Schema
      // string cannot say; generated valid data would otherwise be rejected for it.
      '--generation-allow-x00',
      'false',
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
    const stamp = new Date().toISOString().replace(/[:.]/g, '');
    const logPath = path.join(reportDir, `schemathesis-${ROLE}-${stamp}.log`);
    const acceptedLog = path.join(reportDir, `accepted-${ROLE}-${stamp}.ndjson`);
    const countsPath = path.join(reportDir, `checks-${ROLE}-${stamp}.json`);
    const logFd = openSync(logPath, 'w');
    const started = Date.now();
    const code = await new Promise<number | null>((resolve) => {
      const st = spawn(path.join(ROOT, '.venv/bin/st'), args, {
        cwd: ROOT,
        env: {
          ...process.env,
          SCHEMATHESIS_HOOKS: path.join(__dirname, 'schemathesis-hooks.py'),
          FUZZ_WEBHOOK_SINK: `${sink.url}/fuzz`,
          FUZZ_BASE_URL: base,
          FUZZ_AUTHORIZATION: user.bearer.Authorization,
          FUZZ_PASSWORD: user.password,
          FUZZ_OAUTH_CLIENT_ID: oauthClient.id,
          FUZZ_OAUTH_REDIRECT_URI: redirectUri,
          FUZZ_ACCEPTED_LOG: acceptedLog,
          FUZZ_CHECK_COUNTS: countsPath,
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
    let counts: string;
    try {
      const perCheck = JSON.parse(readFileSync(countsPath, 'utf8')) as Record<string, { passed: number; failed: number }>;
      counts = Object.entries(perCheck)
        .map(([name, c]) => `  ${name}: ${c.passed} passed, ${c.failed} failed`)
        .join('\n');
    } catch {
      counts = '  (no per-check counts written)';
    }
    console.log(`checks run on each response (${countsPath}):\n${counts}`);
    const accepted = summariseAccepted(acceptedLog);
    const acceptedPath = path.join(reportDir, `accepted-${ROLE}-${stamp}.json`);
    writeFileSync(acceptedPath, `${JSON.stringify(accepted, null, 2)}\n`);
    console.log(
      `404/409 answers to valid requests (accepted by positive_data_acceptance), ${acceptedPath}:\n` +
        accepted.map((a) => `  ${a.operation}  ${a.status}  ${a.type ?? '-'}  ×${a.count}`).join('\n'),
    );
    console.log(
      `schemathesis (${ROLE}, checks ${CHECKS}) finished in ${Math.round((Date.now() - started) / 1000)} s with exit code ${code}`,
    );
    expect(code).toBe(0);
  },
  (MAX_TIME + 120) * 1000,
);
