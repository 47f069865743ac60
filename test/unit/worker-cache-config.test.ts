import { ConfigError, loadConfig } from '../../src/config';

const base = { DATABASE_URL: 'postgres://unused@localhost/unused' };

describe('WORKER_MAX_CACHED_WORKFLOWS', () => {
  it('caps the workflow cache at 100 unless set; 0 turns it off', () => {
    expect(loadConfig(base).temporal.maxCachedWorkflows).toBe(100);
    expect(loadConfig({ ...base, WORKER_MAX_CACHED_WORKFLOWS: '0' }).temporal.maxCachedWorkflows).toBe(0);
    expect(loadConfig({ ...base, WORKER_MAX_CACHED_WORKFLOWS: '2500' }).temporal.maxCachedWorkflows).toBe(2500);
    expect(loadConfig(base).temporal.maxConcurrentActivities).toBe(100);
    expect(loadConfig({ ...base, WORKER_MAX_CONCURRENT_ACTIVITIES: '1' }).temporal.maxConcurrentActivities).toBe(1);
    expect(() => loadConfig({ ...base, WORKER_MAX_CONCURRENT_ACTIVITIES: '0' })).toThrow(/WORKER_MAX_CONCURRENT_ACTIVITIES/);
  });

  it('refuses 1 (the SDK needs 0 or at least 2) and negative numbers, naming the variable', () => {
    for (const value of ['1', '-5', 'many']) {
      expect(() => loadConfig({ ...base, WORKER_MAX_CACHED_WORKFLOWS: value })).toThrow(ConfigError);
      expect(() => loadConfig({ ...base, WORKER_MAX_CACHED_WORKFLOWS: value })).toThrow(/WORKER_MAX_CACHED_WORKFLOWS/);
    }
  });
});

describe('WORKFLOW_START_BATCH', () => {
  it('is 25 per dispatcher pass unless set, and refuses what is no pass size', () => {
    expect(loadConfig(base).starts.batchSize).toBe(25);
    expect(loadConfig({ ...base, WORKFLOW_START_BATCH: '32' }).starts.batchSize).toBe(32);
    for (const value of ['0', '1001', '2.5', 'all']) {
      expect(() => loadConfig({ ...base, WORKFLOW_START_BATCH: value })).toThrow(/WORKFLOW_START_BATCH/);
    }
  });
});
