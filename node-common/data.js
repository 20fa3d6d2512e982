// Every SQL statement the API runs, in every Node app and word for word the ASP.NET side's. Text
// protocol (query, not execute) with driver-side parameters, so the server sees one Com_select each.
const COMMENT_BY_ID =
  'SELECT comment_id, thread_id, user_id, body, datemade, datelastupdated FROM comment WHERE comment_id = ?';
const COMMENTS_BY_LIMIT =
  'SELECT comment_id, thread_id, user_id, body, datemade, datelastupdated FROM comment ORDER BY comment_id LIMIT ?';
const COMMENTS_BY_USER =
  'SELECT c.comment_id, c.thread_id, c.user_id, c.body, c.datemade, c.datelastupdated, u.name, u.email, u.phone FROM comment c JOIN user u ON u.user_id = c.user_id WHERE c.user_id = ? ORDER BY c.comment_id LIMIT ?';
const FIRST_COMMENT_BY_USER =
  'SELECT c.comment_id, c.thread_id, c.user_id, c.body, c.datemade, c.datelastupdated, u.name, u.email, u.phone FROM comment c JOIN user u ON u.user_id = c.user_id WHERE c.user_id = ? ORDER BY c.comment_id LIMIT 1';
const USERS_BY_IDS = 'SELECT user_id, name, email, phone FROM user WHERE user_id IN ';

// Explicit objects in the contract's key order; the JSON bytes follow from them.
function toComment(row) {
  return {
    id: row.comment_id,
    threadId: row.thread_id,
    userId: row.user_id,
    body: row.body,
    dateMade: row.datemade,
    dateLastUpdated: row.datelastupdated,
  };
}

function toUser(row) {
  return { id: row.user_id, name: row.name, email: row.email, phone: row.phone };
}

function toCommentWithUser(row) {
  return { ...toComment(row), user: toUser(row) };
}

export function createData(pool) {
  async function rows(sql, params) {
    const [result] = await pool.query(sql, params);
    return result;
  }

  return {
    async ping() {
      await rows('SELECT 1');
    },
    async commentById(id) {
      const [row] = await rows(COMMENT_BY_ID, [id]);
      return row ? toComment(row) : null;
    },
    async commentsByLimit(limit) {
      return (await rows(COMMENTS_BY_LIMIT, [limit])).map(toComment);
    },
    async firstCommentByUserId(userId) {
      const [row] = await rows(FIRST_COMMENT_BY_USER, [userId]);
      return row ? toCommentWithUser(row) : null;
    },
    async commentsByUserId(userId, limit) {
      return (await rows(COMMENTS_BY_USER, [userId, limit])).map(toCommentWithUser);
    },
    // ids: distinct, in the order DataLoader saw them. The statement lists them ascending, so that
    // it does not depend on that order and is the ASP.NET side's word for word (its DataLoader
    // does not keep first-seen order); the users come back in the order asked for.
    async usersByIds(ids) {
      const ascending = [...ids].sort((a, b) => a - b);
      const placeholders = `(${ascending.map(() => '?').join(', ')})`;
      const found = new Map();
      for (const row of await rows(USERS_BY_IDS + placeholders, ascending)) {
        found.set(row.user_id, toUser(row));
      }
      return ids.map((id) => found.get(id) ?? null);
    },
  };
}
