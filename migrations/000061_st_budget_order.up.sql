-- 000061_st_budget_order: entries imported from SillyTavern world info or
-- from a card book without priorities claim the budget in SillyTavern's
-- order, high insertion order first (docs/formats.md "Budget order"): their
-- priority becomes their order, marked with loregate/priorityFromOrder
-- (lore.KeyPriorityFromOrder) so exports leave it out again. Only entries
-- still at the default priority 100 change.
UPDATE lorebook_entries
SET priority = insertion_order,
    extensions = extensions || '{"loregate/priorityFromOrder": true}'::jsonb
WHERE priority = 100
    AND NOT extensions ? 'loregate/priorityFromOrder'
    AND (EXISTS (SELECT 1 FROM jsonb_object_keys(extensions) k WHERE k LIKE 'st/%')
        OR (jsonb_typeof(extensions -> 'card/_fields') = 'array' AND NOT (extensions -> 'card/_fields') ? 'priority'));
