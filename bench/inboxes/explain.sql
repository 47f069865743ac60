-- The inbox and stats queries as the services send them, for seller s1 / buyer b1 of seed.sql.
\echo '--- seller orders: status filter'
EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY ON) SELECT o.id FROM orders o WHERE o.seller_id = md5('s1')::uuid AND o.status = ANY('{ACCEPTED}') ORDER BY o.created_at DESC, o.id LIMIT 20 OFFSET 0;
\echo '--- seller orders: created range'
EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY ON) SELECT o.id FROM orders o WHERE o.seller_id = md5('s1')::uuid AND o.created_at >= now() - interval '30 days' AND o.created_at < now() - interval '10 days' ORDER BY o.created_at DESC, o.id LIMIT 20 OFFSET 0;
\echo '--- seller orders: buyer'
EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY ON) SELECT o.id FROM orders o WHERE o.seller_id = md5('s1')::uuid AND o.buyer_id = md5('b201')::uuid ORDER BY o.created_at DESC, o.id LIMIT 20 OFFSET 0;
\echo '--- seller orders: urn'
EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY ON) SELECT o.id FROM orders o WHERE o.seller_id = md5('s1')::uuid AND EXISTS (SELECT 1 FROM order_items i WHERE i.urn = 'pokemon/base/set0/0' AND i.order_id = o.id) ORDER BY o.created_at DESC, o.id LIMIT 20 OFFSET 0;
\echo '--- seller orders: has open case'
EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY ON) SELECT o.id FROM orders o WHERE o.seller_id = md5('s1')::uuid AND EXISTS (SELECT 1 FROM cases c WHERE c.order_id = o.id AND c.status <> 'CLOSED') ORDER BY o.created_at DESC, o.id LIMIT 20 OFFSET 0;
\echo '--- buyer purchases: status'
EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY ON) SELECT p.id FROM purchases p WHERE p.buyer_id = md5('b1')::uuid AND p.status = ANY('{PAID}') ORDER BY created_at DESC, id LIMIT 20 OFFSET 0;
\echo '--- buyer purchases: seller'
EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY ON) SELECT p.id FROM purchases p WHERE p.buyer_id = md5('b1')::uuid AND EXISTS (SELECT 1 FROM orders o WHERE o.purchase_id = p.id AND o.seller_id = md5('s1')::uuid) ORDER BY created_at DESC, id LIMIT 20 OFFSET 0;
\echo '--- buyer purchases: has open case'
EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY ON) SELECT p.id FROM purchases p WHERE p.buyer_id = md5('b1')::uuid AND EXISTS (SELECT 1 FROM cases c WHERE c.purchase_id = p.id AND c.status <> 'CLOSED') ORDER BY created_at DESC, id LIMIT 20 OFFSET 0;
\echo '--- seller cases: by deadline, status + reason filter'
EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY ON) SELECT id FROM cases WHERE seller_id = md5('s1')::uuid AND status = ANY('{OPEN,REMEDIATION}') AND reason = ANY('{DAMAGED}') ORDER BY (status IN ('OPEN', 'REMEDIATION')) DESC, CASE WHEN status IN ('OPEN', 'REMEDIATION') THEN period_started_at END ASC, updated_at DESC, id LIMIT 20 OFFSET 0;
\echo '--- seller stats: orders source'
EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY ON) WITH unclosed AS (SELECT c.order_id, bool_or(c.status = 'SETTLED' OR EXISTS (SELECT 1 FROM case_outcomes co WHERE co.case_id = c.id AND co.party = 'BUYER' AND co.status = 'PENDING')) AS seller_turn FROM cases c WHERE c.seller_id = md5('s1')::uuid AND c.status <> 'CLOSED' GROUP BY c.order_id)
 SELECT count(*)::int AS total, count(*) FILTER (WHERE o.status IN ('ACCEPTED', 'SHIPPED') OR u.order_id IS NOT NULL)::int AS open, count(*) FILTER (WHERE o.status = 'ACCEPTED' OR coalesce(u.seller_turn, false))::int AS waiting FROM orders o LEFT JOIN unclosed u ON u.order_id = o.id WHERE o.seller_id = md5('s1')::uuid;
