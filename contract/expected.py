"""The contract's answer to a Call, rendered in Python straight from the database rows.

Independent of every implementation: it runs the contract's SQL and writes the JSON bytes by the
rules of contract/README.md (key order, compact, JSON.stringify escaping, ids as strings in GraphQL), so
neither the goldens nor the sample can simply enshrine one implementation's bugs."""
import json
import time

import pymysql

from benchlib.database import Database
from contract.calls import Call

JSON = "application/json; charset=utf-8"
PROBLEM = "application/problem+json; charset=utf-8"
TITLES = {400: "Bad Request", 404: "Not Found", 405: "Method Not Allowed",
          500: "Internal Server Error", 503: "Service Unavailable"}

COLUMNS = "comment_id, thread_id, user_id, body, datemade, datelastupdated"
COMMENT_BY_ID = f"SELECT {COLUMNS} FROM comment WHERE comment_id = %s"
COMMENTS_BY_LIMIT = f"SELECT {COLUMNS} FROM comment ORDER BY comment_id LIMIT %s"
COMMENTS_BY_USER = ("SELECT c.comment_id, c.thread_id, c.user_id, c.body, c.datemade, "
                    "c.datelastupdated, u.name, u.email, u.phone FROM comment c JOIN user u "
                    "ON u.user_id = c.user_id WHERE c.user_id = %s ORDER BY c.comment_id LIMIT %s")
RECONNECT_S = 30
USERS_BY_IDS = "SELECT user_id, name, email, phone FROM user WHERE user_id IN ({})"


def dumps(value) -> bytes:
    """JSON.stringify's bytes: compact, and only quotes, backslashes and controls escaped."""
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False).encode()


def problem(status: int, detail: str) -> tuple[int, str, bytes]:
    return status, PROBLEM, dumps({"type": "about:blank", "title": TITLES[status],
                                   "status": status, "detail": detail})


def connect(db: Database):
    return pymysql.connect(host=db.host, port=db.port, user=db.api_user, password=db.api_password,
                           database=db.name, autocommit=True, charset="utf8mb4")


def query(conn, sql, params=None) -> tuple:
    """Rows of one statement. Tests on a shared machine may stop and restart the database for a
    few seconds: reconnect and retry for up to RECONNECT_S rather than fail at once."""
    deadline = time.monotonic() + RECONNECT_S
    while True:
        try:
            with conn.cursor() as cur:
                cur.execute(sql, params)
                return cur.fetchall()
        except (pymysql.OperationalError, pymysql.InterfaceError):
            if time.monotonic() > deadline:
                raise
            time.sleep(1)
            try:
                conn.ping(reconnect=True)
            except pymysql.OperationalError:
                pass


def dataset(db: Database) -> dict | None:
    """Which data set is loaded (the seeder's seed_meta row), or None."""
    conn = connect(db)
    try:
        with conn.cursor() as cur:
            cur.execute("SELECT seed, scale, checksum FROM seed_meta WHERE id = 1")
            row = cur.fetchone()
    except pymysql.MySQLError:
        return None
    finally:
        conn.close()
    return {"seed": row[0], "scale": row[1], "checksum": row[2]} if row else None


def _date(value):
    return None if value is None else value.isoformat()


class Renderer:
    def __init__(self, db: Database):
        self.conn = connect(db)

    def close(self):
        self.conn.close()

    def _rows(self, sql, params):
        return query(self.conn, sql, params)

    def _fetch(self, call: Call) -> list[tuple]:
        if call.field == "commentById":
            return self._rows(COMMENT_BY_ID, (call.id,))
        if call.field == "commentsByLimit":
            return self._rows(COMMENTS_BY_LIMIT, (call.limit,))
        limit = 1 if call.field == "commentByUserId" else call.limit
        return self._rows(COMMENTS_BY_USER, (call.id, limit))

    def _users(self, ids) -> dict:
        distinct = list(dict.fromkeys(ids))
        if not distinct:
            return {}
        rows = self._rows(USERS_BY_IDS.format(", ".join(["%s"] * len(distinct))), distinct)
        return {row[0]: row for row in rows}

    def render(self, call: Call) -> tuple[int, str, bytes]:
        """(status, content type, body bytes) the contract requires for this call."""
        rows = self._fetch(call)
        if call.has_user and not call.field.endswith("ByUserId"):
            users = self._users([row[2] for row in rows])
            rows = [row + users[row[2]][1:] for row in rows]
        if call.api == "rest":
            return self._rest(call, rows)
        return self._graphql(call, rows)

    def _rest(self, call, rows):
        comments = [_rest_comment(row, call.has_user) for row in rows]
        if call.field == "commentById":
            return (200, JSON, dumps(comments[0])) if comments else \
                problem(404, f"comment {call.id} does not exist")
        if call.field == "commentsByLimit":
            return 200, JSON, dumps(comments)
        if not comments:
            return problem(404, f"user {call.id} has no comments")
        return 200, JSON, dumps(comments[0] if call.field == "commentByUserId" else comments)

    def _graphql(self, call, rows):
        comments = [_graphql_comment(row, call) for row in rows]
        if call.field in ("commentById", "commentByUserId"):
            value = comments[0] if comments else None
        else:
            value = comments
        return 200, f"{call.accept}; charset=utf-8", dumps({"data": {call.alias or call.field: value}})


def _rest_comment(row, with_user):
    comment = {"id": row[0], "threadId": row[1], "userId": row[2], "body": row[3],
               "dateMade": _date(row[4]), "dateLastUpdated": _date(row[5])}
    if with_user:
        comment["user"] = {"id": row[2], "name": row[6], "email": row[7], "phone": row[8]}
    return comment


def _graphql_comment(row, call):
    values = {"id": str(row[0]), "threadId": row[1], "userId": row[2], "body": row[3],
              "dateMade": _date(row[4]), "dateLastUpdated": _date(row[5])}
    comment = {name: values[name] for name in call.fields}
    if call.user:
        user = {"id": str(row[2]), "name": row[6], "email": row[7], "phone": row[8]}
        comment["user"] = {name: user[name] for name in call.user_fields}
    return comment
