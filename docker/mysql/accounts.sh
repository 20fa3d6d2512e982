# The compose counterpart of db/accounts.sql: the same two accounts with the same grants, for any
# host ('%') because the APIs and the seeder connect from other containers, with passwords from
# the environment (.env) so that no image or file in git holds one.
# The mysql image's entrypoint SOURCES this file (it must stay non-executable) on first start,
# after creating the `forum` database, so docker_process_sql and mysql_error are at hand.

if [ -z "${DB_API_PASSWORD:-}" ] || [ -z "${DB_SEED_PASSWORD:-}" ]; then
	mysql_error 'DB_API_PASSWORD and DB_SEED_PASSWORD must be set: cp .env.example .env and edit it.'
fi

# A MySQL string literal: backslashes doubled, single quotes doubled.
testbed_sql_string() {
	local value=${1//\\/\\\\}
	printf "'%s'" "${value//\'/\'\'}"
}

mysql_note "Creating forum_api (SELECT on forum) and forum_seed (all on forum) for any host"
docker_process_sql --database=mysql <<-EOSQL
	CREATE USER 'forum_api'@'%' IDENTIFIED WITH mysql_native_password BY $(testbed_sql_string "$DB_API_PASSWORD");
	GRANT SELECT ON \`forum\`.* TO 'forum_api'@'%';
	CREATE USER 'forum_seed'@'%' IDENTIFIED WITH mysql_native_password BY $(testbed_sql_string "$DB_SEED_PASSWORD");
	GRANT ALL PRIVILEGES ON \`forum\`.* TO 'forum_seed'@'%';
	FLUSH PRIVILEGES;
EOSQL
