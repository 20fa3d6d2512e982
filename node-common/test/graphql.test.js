// GraphQL answers beyond contract/'s goldens and sample (fragments and __typename), and the batched
// user statement's text, which contract/ counts but does not read.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { installed, database, startServer, graphql, startStatementRelay } from './helpers.js';

const { createPool } = await installed('db.js');
const { createData } = await installed('data.js');

// The app reaches the database through a relay that records its statements.
let relay;
let server;
before(async () => {
  relay = await startStatementRelay();
  server = await startServer({ DB_PORT: String(relay.port) });
});
after(async () => {
  await server?.stop();
  await relay?.close();
});

test('variables, aliases, fragments, inline fragments and __typename', async () => {
  const response = await graphql(server, {
    query: `query Q($id: ID!, $n: Int!) {
      first: commentById(id: $id) { ...C }
      list: commentsByLimit(limit: $n) { id ... on Comment { user { name } } }
      kind: __typename
    }
    fragment C on Comment { id body author: user { id } }`,
    variables: { id: 2, n: 2 },
  });
  assert.equal(response.status, 200);
  assert.equal(response.text, '{"data":{"first":{"id":"2","body":"nemo caelestis peior","author":{"id":"1"}},'
    + '"list":[{"id":"1","user":{"name":"Aaliyah.Bosco"}},{"id":"2","user":{"name":"Aaliyah.Bosco"}}],'
    + '"kind":"Query"}}');
});

test('the batched user query lists its ids ascending, whatever order the comments came in', async () => {
  // Users 5, 4, 3, 2, 1 in the query's order; the roots' SQL finishes in any order.
  const roots = [801, 601, 401, 201, 1].map((id, i) => `c${i}: commentById(id: ${id}) { user { id } }`);
  relay.clear();
  const response = await graphql(server, { query: `{ ${roots.join(' ')} }` });
  assert.equal(response.text, '{"data":{"c0":{"user":{"id":"5"}},"c1":{"user":{"id":"4"}},'
    + '"c2":{"user":{"id":"3"}},"c3":{"user":{"id":"2"}},"c4":{"user":{"id":"1"}}}}');
  const users = relay.statements().filter((sql) => sql.includes('FROM user'));
  assert.deepEqual(users, ['SELECT user_id, name, email, phone FROM user WHERE user_id IN (1, 2, 3, 4, 5)']);
});

test('usersByIds sends ascending ids and answers in the order asked', async () => {
  const pool = createPool({ ...database, port: relay.port });
  relay.clear();
  try {
    const users = await createData(pool).usersByIds([1000, 3, 1001, 42]);
    assert.deepEqual(users.map((user) => user?.id ?? null), [1000, 3, null, 42]);
    assert.deepEqual(relay.statements(),
      ['SELECT user_id, name, email, phone FROM user WHERE user_id IN (3, 42, 1000, 1001)']);
  } finally {
    await pool.end();
  }
});
