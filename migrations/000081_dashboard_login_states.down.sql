-- 000081_dashboard_login_states (down): the sign-ins in progress are dropped
-- (they live ten minutes; a browser in the middle of one signs in again).
DROP TABLE dashboard_login_states;
