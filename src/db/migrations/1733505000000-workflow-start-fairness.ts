import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Fair dispatch of the workflow-start outbox (docs/webhooks.md, "Fairness"): each intent names
 * the class it is rationed by (a webhook delivery: its seller; '' for every start that names
 * none, which together form one class), and the dispatcher claims pending intents round-robin
 * across classes instead of oldest first, so one seller's burst cannot hold up everyone else.
 */
export class WorkflowStartFairness1733505000000 implements MigrationInterface {
  name = 'WorkflowStartFairness1733505000000';

  public async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE workflow_starts ADD COLUMN fairness_key text NOT NULL DEFAULT ''`);
    // Deliveries still waiting take their seller from the search attribute they were written with.
    await q.query(`
      UPDATE workflow_starts w
         SET fairness_key = sa.value
        FROM (SELECT s.id, a->>'value' AS value
                FROM workflow_starts s, jsonb_array_elements(s.options->'searchAttributes') a
               WHERE s.started_at IS NULL AND s.workflow_type = 'webhookDeliveryWorkflow' AND a->>'name' = 'WebhookSellerId') sa
       WHERE w.id = sa.id`);
  }

  public async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE workflow_starts DROP COLUMN fairness_key`);
  }
}
