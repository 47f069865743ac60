-- Synthetic rows for reading the inbox query plans (docs/sellers-operators.md): run on a throw-away,
-- migrated database only: `psql <db> -f bench/inboxes/seed.sql`, then `-f bench/inboxes/explain.sql`.
SET session_replication_role = replica;  -- no FK checks: synthetic rows only, for plans
-- 200 sellers x 1000 orders, 5000 buyers; one purchase per order; 2 items per order; every 7th order with a case
CREATE TEMP TABLE s AS SELECT md5('s'||g)::uuid AS id, g FROM generate_series(1,200) g;
CREATE TEMP TABLE b AS SELECT md5('b'||g)::uuid AS id, g FROM generate_series(1,5000) g;
INSERT INTO purchases (id, buyer_id, checkout_id, status, subtotal, delivery, fee, total, delivery_address, created_at)
SELECT md5('p'||g)::uuid, md5('b'||(g % 5000 + 1))::uuid, md5('c'||g)::uuid, CASE WHEN g % 3 = 0 THEN 'COMPLETED' ELSE 'PAID' END, 1000, 150, 25, 1175, '{}',
       now() - (g % 365) * interval '1 day' - (g % 1440) * interval '1 minute'
  FROM generate_series(1,200000) g;
INSERT INTO orders (id, purchase_id, seller_id, buyer_id, status, subtotal, delivery_charge, total, delivery_option, created_at)
SELECT md5('o'||g)::uuid, md5('p'||g)::uuid, md5('s'||(g % 200 + 1))::uuid, md5('b'||(g % 5000 + 1))::uuid,
       (ARRAY['ACCEPTED','SHIPPED','RECEIVED','RECEIVED','RECEIVED'])[(g / 200) % 5 + 1], 1000, 150, 1150, '{}',
       now() - (g % 365) * interval '1 day' - (g % 1440) * interval '1 minute'
  FROM generate_series(1,200000) g;
INSERT INTO order_items (id, order_id, listing_id, urn, price, quantity, condition, language, status)
SELECT md5('i'||g||k)::uuid, md5('o'||g)::uuid, md5('l'||g)::uuid, 'pokemon/base/set' || (g % 50) || '/' || ((g * k) % 300), 500, 1, 'NEAR_MINT', 'en', 'ACCEPTED'
  FROM generate_series(1,200000) g, generate_series(1,2) k;
INSERT INTO cases (id, order_id, purchase_id, buyer_id, seller_id, reason, status, created_at, updated_at, period_started_at)
SELECT md5('k'||g)::uuid, md5('o'||g)::uuid, md5('p'||g)::uuid, md5('b'||(g % 5000 + 1))::uuid, md5('s'||(g % 200 + 1))::uuid,
       (ARRAY['SNAD','DAMAGED','WRONG_ITEM','NOT_RECEIVED','OTHER'])[g % 5 + 1],
       (ARRAY['OPEN','REMEDIATION','ESCALATED','SETTLED','CLOSED','CLOSED','CLOSED'])[(g / 7) % 7 + 1],
       now() - (g % 365) * interval '1 day', now() - (g % 300) * interval '1 day', now() - (g % 30) * interval '1 day'
  FROM generate_series(1,200000,7) g;
ANALYZE;
