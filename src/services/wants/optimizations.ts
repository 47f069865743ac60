import type { DataSource } from 'typeorm';
import { newId } from '../../ids';
import type { Baskets, BasketView } from '../basket/baskets';
import { conflict, invalid, notFound } from '../errors';
import { requestWorkflowStart, type WorkflowStart } from '../workflow-starts';
import type { OptimizationRequest, OptimizationResult } from './optimization-request';

/** What the buyer sends; `addressId` or `country` names the destination. */
export interface OptimizationInput {
  addressId?: string;
  country?: string;
  maxSellers?: number;
  minSellerRating?: number;
  excludeSellerIds?: string[];
  lineIds?: string[];
  timeLimitMs?: number;
}

export type OptimizationView = {
  id: string;
  listId: string;
  status: 'RUNNING' | 'DONE' | 'FAILED';
  request: OptimizationRequest;
  createdAt: Date;
  finishedAt: Date | null;
} & (OptimizationResult | Record<keyof OptimizationResult, null>);

export interface OptimizationOptions {
  /** How long a request waits for its answer before answering 202 (WANTS_OPTIMIZATION_WAIT_MS). */
  waitMs: number;
  /** The solver's time limit when the buyer names none. */
  defaultTimeLimitMs: number;
  /** The optimizer's own task queue (OPTIMIZER_TASK_QUEUE). */
  taskQueue: string;
}

/** Starts the workflow now (its intent is already in the start outbox) and waits up to `waitMs`. */
export type StartAndWait = (start: WorkflowStart, waitMs: number) => Promise<boolean>;

const EMPTY_RESULT: Record<keyof OptimizationResult, null> = {
  solverStatus: null,
  total: null,
  itemsTotal: null,
  deliveryTotal: null,
  naiveTotal: null,
  lowerBound: null,
  gap: null,
  solveMs: null,
  sellers: null,
  picks: null,
  unfilled: null,
};

/** The start of `optimization:{id}`, solved on `taskQueue` within about `timeLimitMs` (src/modules/wants.ts). */
export type OptimizationStart = (optimizationId: string, listId: string, timeLimitMs: number, taskQueue: string) => WorkflowStart;

/**
 * A wants list's basket optimizations (docs/wants.md, "The optimizer"): asked for here, solved by
 * the `optimization:{id}` workflow on the optimizer's task queue, read back as they were answered,
 * and taken into the buyer's basket whole or not at all.
 */
export class WantsOptimizations {
  constructor(
    private readonly db: DataSource,
    private readonly baskets: Baskets,
    private readonly optimizationStart: OptimizationStart,
    private readonly startAndWait: StartAndWait,
    private readonly options: OptimizationOptions,
  ) {}

  /** `finished`: whether the answer is final (201) or the client reads it later (202). */
  async request(userId: string, listId: string, input: OptimizationInput): Promise<{ finished: boolean; optimization: OptimizationView }> {
    await this.ownedList(userId, listId);
    const request: OptimizationRequest = {
      country: await this.destination(userId, input),
      addressId: input.addressId ?? null,
      maxSellers: input.maxSellers ?? null,
      minSellerRating: input.minSellerRating ?? null,
      excludeSellerIds: input.excludeSellerIds ?? [],
      lineIds: input.lineIds ?? null,
      timeLimitMs: input.timeLimitMs ?? this.options.defaultTimeLimitMs,
    };
    if (request.lineIds) await this.linesOfList(listId, request.lineIds);
    const id = newId();
    const start = this.optimizationStart(id, listId, request.timeLimitMs, this.options.taskQueue);
    await this.db.transaction(async (tx) => {
      await tx.query(`INSERT INTO wants_optimizations (id, list_id, user_id, status, request) VALUES ($1, $2, $3, 'RUNNING', $4)`, [
        id,
        listId,
        userId,
        JSON.stringify(request),
      ]);
      await requestWorkflowStart(tx, start);
    });
    const finished = await this.startAndWait(start, this.options.waitMs);
    const optimization = await this.get(userId, listId, id);
    return { finished: finished && optimization.status !== 'RUNNING', optimization };
  }

  async get(userId: string, listId: string, optimizationId: string): Promise<OptimizationView> {
    const [row]: Array<{
      id: string;
      list_id: string;
      status: OptimizationView['status'];
      request: OptimizationRequest;
      result: OptimizationResult | null;
      created_at: Date;
      finished_at: Date | null;
    }> = await this.db.query(
      `SELECT o.id, o.list_id, o.status, o.request, o.result, o.created_at, o.finished_at
         FROM wants_optimizations o WHERE o.id = $1 AND o.list_id = $2 AND o.user_id = $3`,
      [optimizationId, listId, userId],
    );
    if (!row) throw notFound('Optimization');
    return {
      id: row.id,
      listId: row.list_id,
      status: row.status,
      request: row.request,
      ...(row.result ?? EMPTY_RESULT),
      createdAt: row.created_at,
      finishedAt: row.finished_at,
    };
  }

  /** Puts the optimization's picks and delivery choices into the buyer's open basket: all, or nothing and a 409. */
  async toBasket(userId: string, listId: string, optimizationId: string): Promise<BasketView> {
    const optimization = await this.get(userId, listId, optimizationId);
    if (optimization.status !== 'DONE' || optimization.picks === null) {
      throw conflict('optimization-not-finished', 'The optimization has no basket: it is still running, or failed.');
    }
    const choices = Object.fromEntries(optimization.sellers.map((s) => [s.sellerId, s.deliveryOptionId]));
    return this.baskets.addPicks(userId, optimization.picks, choices, optimization.request.addressId);
  }

  private async ownedList(userId: string, listId: string): Promise<void> {
    const [list] = await this.db.query(`SELECT 1 FROM wants_lists WHERE id = $1 AND user_id = $2`, [listId, userId]);
    if (!list) throw notFound('Wants list');
  }

  private async destination(userId: string, input: OptimizationInput): Promise<string> {
    if (!input.addressId) return input.country!;
    const [address]: Array<{ country: string }> = await this.db.query(
      `SELECT country FROM saved_addresses WHERE id = $1 AND user_id = $2`,
      [input.addressId, userId],
    );
    if (!address) throw notFound('Address');
    return address.country;
  }

  private async linesOfList(listId: string, lineIds: string[]): Promise<void> {
    const rows: Array<{ id: string }> = await this.db.query(`SELECT id FROM wants_lines WHERE list_id = $1 AND id = ANY($2)`, [
      listId,
      lineIds,
    ]);
    const known = new Set(rows.map((r) => r.id));
    const unknown = lineIds.filter((id) => !known.has(id));
    if (unknown.length > 0) {
      throw invalid(
        'validation-failed',
        'Some `lineIds` are not lines of this list.',
        unknown.map((id) => ({ in: 'body', field: `lineIds.${lineIds.indexOf(id)}`, message: `${id} is not a line of this list` })),
      );
    }
  }
}
