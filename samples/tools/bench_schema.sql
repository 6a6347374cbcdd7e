-- The bench schema of the MariaDB samples (mariadb_instance.sh, mariadb_pair.sh): tiny_trx.py writes orders,
-- accounts and audit; heartbeat.py stamps heartbeat.
CREATE DATABASE IF NOT EXISTS bench;
USE bench;
CREATE USER IF NOT EXISTS 'bench'@'localhost' IDENTIFIED BY 'benchpw';
GRANT ALL ON bench.* TO 'bench'@'localhost';
CREATE TABLE IF NOT EXISTS bench.orders (id BIGINT AUTO_INCREMENT PRIMARY KEY, customer_id INT NOT NULL,
  amount DECIMAL(10,2) NOT NULL, status TINYINT NOT NULL, created DATETIME(6) NOT NULL, note VARCHAR(32)) ENGINE=InnoDB;
CREATE TABLE IF NOT EXISTS bench.accounts (id INT PRIMARY KEY, balance BIGINT NOT NULL, updated DATETIME(6)) ENGINE=InnoDB;
CREATE TABLE IF NOT EXISTS bench.audit (id BIGINT AUTO_INCREMENT PRIMARY KEY, account_id INT NOT NULL, delta INT NOT NULL,
  ts DATETIME(6) NOT NULL) ENGINE=InnoDB;
CREATE TABLE IF NOT EXISTS bench.heartbeat (id INT PRIMARY KEY, ts DATETIME(6) NOT NULL, epoch DOUBLE NOT NULL) ENGINE=InnoDB;
INSERT IGNORE INTO bench.accounts (id, balance, updated) SELECT seq, 1000, NOW(6) FROM seq_1_to_1000;
INSERT IGNORE INTO bench.heartbeat VALUES (1, NOW(6), UNIX_TIMESTAMP(NOW(6)));
