"""The shared database holds the study's Appendix A schema, its data, and a read-only API account."""
import pymysql
import pytest

from benchlib.database import database

APPENDIX_A = {
    "category": [("category_id", "int", "NO"), ("name", "varchar(255)", "NO"),
                 ("description", "varchar(255)", "NO"), ("datemade", "date", "YES"),
                 ("datelastupdated", "date", "YES")],
    "comment": [("comment_id", "int", "NO"), ("thread_id", "int", "NO"), ("user_id", "int", "NO"),
                ("body", "varchar(255)", "NO"), ("datemade", "date", "YES"),
                ("datelastupdated", "date", "YES")],
    "thread": [("thread_id", "int", "NO"), ("category_id", "int", "NO"), ("user_id", "int", "NO"),
               ("title", "varchar(255)", "NO"), ("body", "varchar(255)", "NO"),
               ("datemade", "date", "YES"), ("datelastupdated", "date", "YES")],
    "user": [("user_id", "int", "NO"), ("name", "varchar(255)", "NO"), ("email", "varchar(255)", "NO"),
             ("phone", "varchar(255)", "NO"), ("datemade", "date", "YES"),
             ("datelastupdated", "date", "YES")],
}
KEYS = {
    ("category", "PRIMARY", "category_id"), ("comment", "PRIMARY", "comment_id"),
    ("comment", "thread_id_fk", "thread_id"), ("comment", "user_id_fk", "user_id"),
    ("thread", "PRIMARY", "thread_id"), ("thread", "category_id_fk", "category_id"),
    ("thread", "user_id_fk", "user_id"), ("user", "PRIMARY", "user_id"),
}


def rows(conn, query, *args):
    with conn.cursor() as cur:
        cur.execute(query, args)
        return cur.fetchall()


def test_tables_match_appendix_a(forum):
    for table, columns in APPENDIX_A.items():
        found = rows(forum, "SELECT column_name, column_type, is_nullable FROM information_schema.columns "
                            "WHERE table_schema = DATABASE() AND table_name = %s ORDER BY ordinal_position",
                     table)
        assert [(name, kind.replace("int(11)", "int"), null) for name, kind, null in found] == columns
        engine, collation = rows(forum, "SELECT engine, table_collation FROM information_schema.tables "
                                        "WHERE table_schema = DATABASE() AND table_name = %s", table)[0]
        assert engine == "InnoDB" and collation.startswith("utf8mb4")


def test_keys_match_appendix_a(forum):
    found = rows(forum, "SELECT table_name, index_name, column_name FROM information_schema.statistics "
                        "WHERE table_schema = DATABASE() AND table_name IN ('category','comment','thread','user')")
    assert set(found) == KEYS


def test_counts_are_the_studys(forum):
    counts = {t: rows(forum, f"SELECT COUNT(*) FROM `{t}`")[0][0]
              for t in ("user", "category", "thread", "comment")}
    assert counts == {"user": 1000, "category": 1000, "thread": 1000, "comment": 200000}
    per_user = rows(forum, "SELECT MIN(n), MAX(n) FROM (SELECT COUNT(*) n FROM comment GROUP BY user_id) t")
    assert per_user == ((200, 200),)
    assert rows(forum, "SELECT MIN(thread_id), MAX(thread_id) FROM comment") == ((1, 200),)


@pytest.mark.parametrize("statement", [
    "INSERT INTO category (name, description) VALUES ('x', 'y')",
    "UPDATE comment SET body = 'x' WHERE comment_id = 1",
    "DELETE FROM comment WHERE comment_id = 1",
    "DROP TABLE comment",
    "CREATE TABLE intruder (id int)",
])
def test_api_account_cannot_write(statement):
    db = database()
    conn = pymysql.connect(host=db.host, port=db.port, user=db.api_user, password=db.api_password,
                           database=db.name, autocommit=True)
    with conn:
        assert rows(conn, "SELECT body FROM comment WHERE comment_id = 1")
        with pytest.raises(pymysql.err.OperationalError) as denied:
            rows(conn, statement)
        assert denied.value.args[0] in (1142, 1044)  # command denied / access denied
