-- 000061_st_budget_order (down): entries whose priority still follows their
-- order go back to the default priority 100 and lose the marker.
-- loses: rows lorebook_entries where extensions ? 'loregate/priorityFromOrder'
UPDATE lorebook_entries
SET priority = CASE WHEN priority = insertion_order THEN 100 ELSE priority END,
    extensions = extensions - 'loregate/priorityFromOrder'
WHERE extensions ? 'loregate/priorityFromOrder';
