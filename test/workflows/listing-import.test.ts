import { Worker } from '@temporalio/worker';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import type { ImportActivities, ImportPlan } from '../../activities/imports';
import { listingImportWorkflow } from '../../workflows';
import { timeSkippingEnv, workflowBundle, testDataConverter } from '../support/temporal';

let env: TestWorkflowEnvironment;
beforeAll(async () => {
  env = await timeSkippingEnv();
});
afterAll(() => env?.teardown());

function stubs(plan: ImportPlan, calls: string[], failFirstBatchAttempts = 0): ImportActivities {
  let failures = 0;
  return {
    startImport: async () => plan,
    importBatch: async (_id, offset, limit) => {
      if (offset === plan.processedRows && failures < failFirstBatchAttempts) {
        failures += 1;
        throw new Error('database unavailable');
      }
      calls.push(`${offset}+${limit}`);
    },
    finishImport: async () => ({
      status: plan.status === 'RUNNING' ? 'COMPLETED' : plan.status,
      totalRows: plan.totalRows,
      createdCount: 0,
      errorCount: 0,
    }),
  };
}

async function run(activities: ImportActivities, importId: string) {
  const worker = await Worker.create({
    dataConverter: testDataConverter,
    connection: env.nativeConnection,
    taskQueue: 'test-import',
    workflowBundle: await workflowBundle(),
    activities,
  });
  return worker.runUntil(
    env.client.workflow.execute(listingImportWorkflow, {
      workflowId: `import:${importId}`,
      taskQueue: 'test-import',
      args: [{ importId }],
    }),
  );
}

describe('listingImportWorkflow', () => {
  it('processes the rows in batches, from where a previous run stopped', async () => {
    const calls: string[] = [];
    const result = await run(stubs({ status: 'RUNNING', totalRows: 1050, processedRows: 500, batchSize: 250 }, calls), 'i1');
    expect(calls).toEqual(['500+250', '750+250', '1000+250']);
    expect(result.status).toBe('COMPLETED');
  });

  it('retries a failing batch', async () => {
    const calls: string[] = [];
    await run(stubs({ status: 'RUNNING', totalRows: 20, processedRows: 0, batchSize: 10 }, calls, 2), 'i2');
    expect(calls).toEqual(['0+10', '10+10']);
  });

  it('does no batch for a finished import (a re-run)', async () => {
    const calls: string[] = [];
    const result = await run(stubs({ status: 'COMPLETED', totalRows: 20, processedRows: 20, batchSize: 10 }, calls), 'i3');
    expect(calls).toEqual([]);
    expect(result.status).toBe('COMPLETED');
  });
});
