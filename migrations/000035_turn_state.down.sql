-- 000035_turn_state (down): drops exactly what 000035_turn_state.up.sql
-- creates. Turn state and the activation log are lost; lore is untouched.
DROP TABLE activation_log;
DROP TABLE turn_entry_state;
DROP TABLE turn_conversations;
