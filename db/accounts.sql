-- Two accounts, both local to 127.0.0.1/localhost. The APIs can only read the forum schema;
-- the seeder can rebuild it. Passwords are the managed server's defaults: it listens on
-- 127.0.0.1 only. Point DB_* at an external server to use accounts of your own.
CREATE USER IF NOT EXISTS 'forum_api'@'127.0.0.1' IDENTIFIED BY 'forum_api';
CREATE USER IF NOT EXISTS 'forum_api'@'localhost' IDENTIFIED BY 'forum_api';
GRANT SELECT ON `forum`.* TO 'forum_api'@'127.0.0.1';
GRANT SELECT ON `forum`.* TO 'forum_api'@'localhost';

CREATE USER IF NOT EXISTS 'forum_seed'@'127.0.0.1' IDENTIFIED BY 'forum_seed';
CREATE USER IF NOT EXISTS 'forum_seed'@'localhost' IDENTIFIED BY 'forum_seed';
GRANT ALL PRIVILEGES ON `forum`.* TO 'forum_seed'@'127.0.0.1';
GRANT ALL PRIVILEGES ON `forum`.* TO 'forum_seed'@'localhost';
FLUSH PRIVILEGES;
