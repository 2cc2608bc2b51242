-- 000020_lore_notify (down): drops the notification triggers; scope caches
-- then only see other replicas' writes through their per-turn version check.
DROP TRIGGER servers_delete_notify ON servers;
DROP TRIGGER servers_lore_version_notify ON servers;
DROP FUNCTION loregate_notify_lore();
