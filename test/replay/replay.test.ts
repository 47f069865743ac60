import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { historyFromJSON } from '@temporalio/common/lib/proto-utils';
import { Worker } from '@temporalio/worker';
import { loadConfig } from '../../src/config';
import { DROP_WORKFLOW_SPANS } from '../../src/observability/tracing';
import { temporalDataConverter } from '../../src/temporal/data-converter';
import * as workflows from '../../workflows';
import { HISTORIES_DIR } from '../support/replay-histories';
import { workflowBundle } from '../support/temporal';

const files = readdirSync(HISTORIES_DIR)
  .filter((f) => f.endsWith('.json'))
  .sort();
const typeOf = (file: string) => file.split('--')[0]!;

test('a recorded history exists for every workflow type the worker hosts', () => {
  const recorded = new Set(files.map(typeOf));
  expect(Object.keys(workflows).filter((type) => !recorded.has(type))).toEqual([]);
});

test('every recorded history replays on the current workflow code', async () => {
  const histories = files.map((file) => ({
    workflowId: file.replace(/\.json$/, ''),
    history: historyFromJSON(JSON.parse(readFileSync(path.join(HISTORIES_DIR, file), 'utf8'))),
  }));
  const failures: string[] = [];
  const results = Worker.runReplayHistories(
    {
      workflowBundle: await workflowBundle(),
      // The histories were recorded with the public test key, as every test environment runs.
      dataConverter: temporalDataConverter(loadConfig({ DATABASE_URL: 'postgres://unused@localhost/unused' }).temporal),
      // Traced runs (the tracing end-to-end test records some) export workflow spans through
      // this sink; replay never calls it, but it must exist, as on every worker.
      sinks: DROP_WORKFLOW_SPANS,
    },
    histories,
  );
  for await (const result of results) {
    if (result.error) failures.push(`${result.workflowId}: ${result.error.message}`);
  }
  expect(failures).toEqual([]);
  expect(histories.length).toBeGreaterThanOrEqual(Object.keys(workflows).length);
});
