-- The study's Appendix A, verbatim in structure: four InnoDB tables, utf8mb4,
-- DATE columns and the three secondary keys (user_id_fk, thread_id_fk, category_id_fk).
CREATE TABLE IF NOT EXISTS `category` (
  `category_id` int NOT NULL AUTO_INCREMENT,
  `name` varchar(255) NOT NULL,
  `description` varchar(255) NOT NULL,
  `datemade` date DEFAULT NULL,
  `datelastupdated` date DEFAULT NULL,
  PRIMARY KEY (`category_id`)
) ENGINE=InnoDB AUTO_INCREMENT=1 DEFAULT CHARSET=utf8mb4;

CREATE TABLE IF NOT EXISTS `comment` (
  `comment_id` int NOT NULL AUTO_INCREMENT,
  `thread_id` int NOT NULL,
  `user_id` int NOT NULL,
  `body` varchar(255) NOT NULL,
  `datemade` date DEFAULT NULL,
  `datelastupdated` date DEFAULT NULL,
  PRIMARY KEY (`comment_id`),
  KEY `thread_id_fk` (`thread_id`),
  KEY `user_id_fk` (`user_id`)
) ENGINE=InnoDB AUTO_INCREMENT=1 DEFAULT CHARSET=utf8mb4;

CREATE TABLE IF NOT EXISTS `thread` (
  `thread_id` int NOT NULL AUTO_INCREMENT,
  `category_id` int NOT NULL,
  `user_id` int NOT NULL,
  `title` varchar(255) NOT NULL,
  `body` varchar(255) NOT NULL,
  `datemade` date DEFAULT NULL,
  `datelastupdated` date DEFAULT NULL,
  PRIMARY KEY (`thread_id`),
  KEY `category_id_fk` (`category_id`),
  KEY `user_id_fk` (`user_id`)
) ENGINE=InnoDB AUTO_INCREMENT=1 DEFAULT CHARSET=utf8mb4;

CREATE TABLE IF NOT EXISTS `user` (
  `user_id` int NOT NULL AUTO_INCREMENT,
  `name` varchar(255) NOT NULL,
  `email` varchar(255) NOT NULL,
  `phone` varchar(255) NOT NULL,
  `datemade` date DEFAULT NULL,
  `datelastupdated` date DEFAULT NULL,
  PRIMARY KEY (`user_id`)
) ENGINE=InnoDB AUTO_INCREMENT=1 DEFAULT CHARSET=utf8mb4;

-- Not part of the study: what the seeder loaded, so a re-run can skip and `db status` can tell.
CREATE TABLE IF NOT EXISTS `seed_meta` (
  `id` tinyint NOT NULL,
  `seed` int NOT NULL,
  `scale` int NOT NULL,
  `faker_version` varchar(32) NOT NULL,
  `checksum` char(64) NOT NULL,
  `loaded_at` datetime NOT NULL,
  PRIMARY KEY (`id`)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4;
