/**
 * Bursts of bare one-activity workflows (baseline-workflow.ts and its variants) with the worker
 * and client in this process: the webhook benchmark's baseline, and the two measurements of what
 * the dev server itself costs (dev-server-aging.ts, start-options.ts).
 */
import { Client, Connection, type WorkflowStartOptions } from '@temporalio/client';
import { NativeConnection, Worker, type WorkerOptions } from '@temporalio/worker';
import { cpuTicksByGroup, processCpuTicks, waitFor } from '../support';
import { newId } from '../../src/ids';

/** Starts in flight at once, as a producer committing batches of 100 events would ask. */
const START_BATCH = 100;

export interface BurstOptions {
  /** `baselineWorkflow` unless given. */
  workflowType?: string;
  workflowId: (eventId: string) => string;
  /** Start options beyond a bare start, for the n-th workflow of the burst. */
  options?: (n: number) => Partial<WorkflowStartOptions>;
}

export interface Burst {
  /** When each workflow was started and when its activity ran (ms since the epoch), by event id. */
  started: Map<string, number>;
  done: Map<string, number>;
  /** First start to last activity. */
  seconds: number;
  /** CPU time from the first start to the last activity, by process (`cpuTicksByGroup`). */
  cpu: ReturnType<typeof cpuTicksByGroup>;
}

export class BareWorkflows {
  private constructor(
    private readonly client: Client,
    private readonly connection: NativeConnection,
    private readonly worker: Worker,
    private readonly running: Promise<void>,
    private readonly taskQueue: string,
    /** Filled by the worker's activity: when each event's activity ran. */
    private readonly done: Map<string, number>,
  ) {}

  /** A worker on `taskQueue` running `workflowBundle`, whose one activity records when it ran. */
  static async start(address: string, taskQueue: string, workflowBundle: WorkerOptions['workflowBundle']): Promise<BareWorkflows> {
    const connection = await NativeConnection.connect({ address });
    const client = new Client({ connection: await Connection.connect({ address }) });
    const done = new Map<string, number>();
    const worker = await Worker.create({
      connection,
      taskQueue,
      workflowBundle,
      activities: { touch: async (eventId: string) => void done.set(eventId, Date.now()) },
    });
    return new BareWorkflows(client, connection, worker, worker.run(), taskQueue, done);
  }

  /** Starts `count` workflows, START_BATCH at a time, and resolves once every activity has run. */
  async burst(count: number, { workflowType = 'baselineWorkflow', workflowId, options }: BurstOptions): Promise<Burst> {
    this.done.clear();
    const started = new Map<string, number>();
    const ids = Array.from({ length: count }, () => newId());
    const cpuBefore = processCpuTicks();
    for (let i = 0; i < ids.length; i += START_BATCH) {
      await Promise.all(
        ids.slice(i, i + START_BATCH).map((id, j) => {
          started.set(id, Date.now());
          return this.client.workflow.start(workflowType, {
            workflowId: workflowId(id),
            taskQueue: this.taskQueue,
            args: [id],
            ...options?.(i + j),
          });
        }),
      );
    }
    await waitFor(() => this.done.size === count, `the activities of ${count} ${workflowType} runs`);
    const cpu = cpuTicksByGroup(cpuBefore, processCpuTicks());
    const done = new Map(this.done);
    const seconds = (Math.max(...done.values()) - Math.min(...started.values())) / 1000;
    return { started, done, seconds, cpu };
  }

  async close(): Promise<void> {
    this.worker.shutdown();
    await this.running;
    await this.client.connection.close();
    await this.connection.close();
  }
}
