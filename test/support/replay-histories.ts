import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { Client, WorkflowHandle } from '@temporalio/client';
import { historyToJSON } from '@temporalio/common/lib/proto-utils';

export const HISTORIES_DIR = path.resolve(__dirname, '../replay/histories');

/**
 * With RECORD_REPLAY_HISTORIES=1, an end-to-end stack saves, when it stops, the history of
 * every workflow it ran into test/replay/histories/<type>--<id>.json (payloads as the cluster
 * stores them: encrypted with the public test key). test/replay/replay.test.ts replays them
 * against the current workflow code, so a change that would break running workflows fails CI.
 */
export async function recordReplayHistories(client: Client): Promise<void> {
  if (process.env.RECORD_REPLAY_HISTORIES !== '1') return;
  for await (const execution of client.workflow.list()) {
    await save(client.workflow.getHandle(execution.workflowId, execution.runId), execution.type);
  }
}

/**
 * The same, for named workflows on a server that cannot list them (the time-skipping test
 * server): the workflow tests of types no end-to-end test runs record their histories here.
 */
export async function recordReplayHistoriesOf(client: Client, workflowIds: string[]): Promise<void> {
  if (process.env.RECORD_REPLAY_HISTORIES !== '1') return;
  for (const workflowId of workflowIds) {
    const handle = client.workflow.getHandle(workflowId);
    await save(handle, (await handle.describe()).type);
  }
}

/** Writes one workflow's history as test/replay/histories/<type>--<id>.json. */
async function save(handle: WorkflowHandle, type: string): Promise<void> {
  mkdirSync(HISTORIES_DIR, { recursive: true });
  const name = `${type}--${handle.workflowId.replace(/[^A-Za-z0-9-]+/g, '_')}`.slice(0, 120);
  writeFileSync(path.join(HISTORIES_DIR, `${name}.json`), historyToJSON(await handle.fetchHistory()));
}
