import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startServer, get, graphql, problem, connectDatabase, expectedComments,
  startStatementRelay } from './helpers.js';
import { createPool } from '../db.js';
import { createData } from '../data.js';
import { loadConfig } from '../config.js';

// The app reaches the database through a relay that records its statements: exact counts and
// texts, whatever else uses the shared server.
let relay;
let server;
let db;
before(async () => {
  relay = await startStatementRelay();
  server = await startServer({ DB_PORT: String(relay.port) });
  db = await connectDatabase();
});
after(async () => {
  await server?.stop();
  await relay?.close();
  await db?.end();
});

async function statementsFor(query) {
  relay.clear();
  const response = await graphql(server, { query });
  assert.equal(response.status, 200, response.text);
  return relay.statements();
}

const FIELDS = 'id threadId userId body dateMade dateLastUpdated';
const WITH_USER = `${FIELDS} user { id name email phone }`;

// GraphQL's ID is a string on the wire; the rest is the REST object, key for key.
function asGraphQL(comment) {
  const { user, ...rest } = comment;
  const out = { ...rest, id: String(comment.id) };
  return user ? { ...out, user: { ...user, id: String(user.id) } } : out;
}

async function data(body) {
  const response = await graphql(server, body);
  assert.equal(response.status, 200, response.text);
  assert.equal(response.headers.get('content-type'), 'application/json; charset=utf-8');
  return response.text;
}

test('exact bytes of a known comment with its user', async () => {
  assert.equal(await data({ query: `{ commentById(id: 1) { ${WITH_USER} } }` }),
    '{"data":{"commentById":{"id":"1","threadId":1,"userId":1,"body":"praesentium cena alii",'
    + '"dateMade":"2021-03-04","dateLastUpdated":"2021-08-14","user":{"id":"1","name":"Aaliyah.Bosco",'
    + '"email":"Clarabelle.Osinski55@hotmail.com","phone":"893-788-0018 x04956"}}}}');
});

test('every field, rows 1, 50 and 100, with and without user, matches the database', async () => {
  for (const limit of [1, 50, 100]) {
    for (const withUser of [false, true]) {
      const selection = withUser ? WITH_USER : FIELDS;
      const all = (await expectedComments(db, '', [], limit, withUser)).map(asGraphQL);
      const mine = (await expectedComments(db, 'WHERE c.user_id = ?', [7], limit, withUser)).map(asGraphQL);
      assert.equal(await data({ query: `{ commentsByLimit(limit: ${limit}) { ${selection} } }` }),
        JSON.stringify({ data: { commentsByLimit: all } }));
      assert.equal(await data({ query: `{ commentsByUserId(id: 7, limit: ${limit}) { ${selection} } }` }),
        JSON.stringify({ data: { commentsByUserId: mine } }));
    }
  }
  const [one] = (await expectedComments(db, 'WHERE c.comment_id = ?', [4321], 1, true)).map(asGraphQL);
  assert.equal(await data({ query: `{ commentById(id: "4321") { ${WITH_USER} } }` }),
    JSON.stringify({ data: { commentById: one } }));
  const [first] = (await expectedComments(db, 'WHERE c.user_id = ?', [9], 1, true)).map(asGraphQL);
  assert.equal(await data({ query: `{ commentByUserId(id: 9) { ${WITH_USER} } }` }),
    JSON.stringify({ data: { commentByUserId: first } }));
});

test('variables, aliases, fragments, inline fragments and __typename', async () => {
  const text = await data({
    query: `query Q($id: ID!, $n: Int!) {
      first: commentById(id: $id) { ...C }
      list: commentsByLimit(limit: $n) { id ... on Comment { user { name } } }
      kind: __typename
    }
    fragment C on Comment { id body author: user { id } }`,
    variables: { id: 2, n: 2 },
  });
  assert.equal(text, '{"data":{"first":{"id":"2","body":"nemo caelestis peior","author":{"id":"1"}},'
    + '"list":[{"id":"1","user":{"name":"Aaliyah.Bosco"}},{"id":"2","user":{"name":"Aaliyah.Bosco"}}],'
    + '"kind":"Query"}}');
});

test('operationName picks one of several operations', async () => {
  const query = 'query A { commentById(id: 1) { id } } query B { commentById(id: 3) { id } }';
  assert.equal(await data({ query, operationName: 'B' }), '{"data":{"commentById":{"id":"3"}}}');
  assert.equal(await data({ query }),
    '{"errors":[{"message":"Must provide operation name if query contains multiple operations."}]}');
  assert.equal(await data({ query, operationName: 'C' }),
    '{"errors":[{"message":"Unknown operation named \\"C\\"."}]}');
});

test('unknown rows are null or empty lists', async () => {
  assert.equal(await data({ query: '{ a: commentById(id: 200001) { id } b: commentByUserId(id: 1001) { id } '
    + 'c: commentsByUserId(id: 1001, limit: 5) { id } }' }),
  '{"data":{"a":null,"b":null,"c":[]}}');
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
  const pool = createPool({ ...loadConfig().db, port: relay.port });
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

test('Comment.user is one batched query per request; join fields add none', async () => {
  const count = async (query) => (await statementsFor(query)).length;
  assert.equal(await count('{ commentsByLimit(limit: 100) { id } }'), 1);
  assert.equal(await count('{ commentsByLimit(limit: 100) { id user { id } } }'), 2);
  assert.equal(await count('{ commentById(id: 5) { user { name } } }'), 2);
  assert.equal(await count('{ commentsByUserId(id: 5, limit: 100) { user { name } } }'), 1);
  assert.equal(await count('{ commentByUserId(id: 5) { user { name } } }'), 1);
  // Three root fields finishing at different times still share one user query.
  assert.equal(await count('{ a: commentById(id: 1) { user { id } } b: commentById(id: 201) { user { id } } '
    + 'c: commentsByLimit(limit: 50) { user { email } } }'), 4);
});

test('bad argument values: HTTP 200, the REST message, null data', async () => {
  const ID_RULE = 'id must be an integer from 1 to 2147483647';
  const LIMIT_RULE = 'limit must be an integer from 1 to 1000';
  const cases = [
    ['{ commentById(id: "abc") { id } }', ID_RULE, { commentById: null }],
    ['{ commentById(id: "0") { id } }', ID_RULE, { commentById: null }],
    ['{ commentById(id: 2147483648) { id } }', ID_RULE, { commentById: null }],
    ['{ commentByUserId(id: "-3") { id } }', ID_RULE, { commentByUserId: null }],
    ['{ commentsByLimit(limit: 0) { id } }', LIMIT_RULE, null],
    ['{ commentsByLimit(limit: 1001) { id } }', LIMIT_RULE, null],
    ['{ commentsByUserId(id: 1, limit: -1) { id } }', LIMIT_RULE, null],
    ['{ commentsByUserId(id: "1.0", limit: 5) { id } }', ID_RULE, null],
  ];
  for (const [query, message, expected] of cases) {
    const body = JSON.parse(await data({ query }));
    assert.equal(body.errors.length, 1, query);
    assert.equal(body.errors[0].message, message, query);
    assert.deepEqual(body.data, expected, query);
  }
  const viaVariable = JSON.parse(await data({ query: 'query($id: ID!) { commentById(id: $id) { id } }',
    variables: { id: '99999999999' } }));
  assert.equal(viaVariable.errors[0].message, ID_RULE);
});

// Well-formed requests that never execute: with application/json (what fetch's Accept: */* gets)
// they are 200, errors and no data. Their 400s under the GraphQL media type: graphql-transport.test.js.
const neverExecuted = {
  'a syntax error': { query: '{ commentById(id: 1) { id }' },
  'an empty query': { query: '' },
  'an unknown field': { query: '{ commentById(id: 1) { id title } }' },
  'a string for an Int': { query: '{ commentsByLimit(limit: "x") { id } }' },
  'an Int literal past 2^31-1': { query: '{ commentsByLimit(limit: 2147483648) { id } }' },
  'an Int variable past 2^31-1': { query: 'query($n: Int!) { commentsByLimit(limit: $n) { id } }',
    variables: { n: 2147483648 } },
  'a missing variable': { query: 'query($n: Int!) { commentsByLimit(limit: $n) { id } }' },
  'a mutation': { query: 'mutation { commentById(id: 1) { id } }' },
  'a subscription': { query: 'subscription { commentById(id: 1) { id } }' },
  'a missing selection': { query: '{ commentById(id: 1) }' },
  'too deep (introspection)': { query: '{ __schema { types { fields { type { ofType { name } } } } } }' },
  'too many fields (aliases)': { query: `{ ${Array.from({ length: 201 }, (_, i) => `a${i}: __typename`).join(' ')} }` },
  'too many fields (fragments)': { query: `{ ...F ...F } fragment F on Query { a: commentById(id: 1) { ...G } b: commentById(id: 2) { ...G } }
    fragment G on Comment { ${Array.from({ length: 60 }, (_, i) => `f${i}: id`).join(' ')} }` },
  'too many comments (aliases)': { query: `{ ${Array.from({ length: 33 }, (_, i) => `a${i}: commentsByLimit(limit: 1000) { id }`).join(' ')} }` },
  'a fragment cycle': { query: '{ commentById(id: 1) { ...A } } fragment A on Comment { ...B } fragment B on Comment { ...A }' },
};

for (const [name, body] of Object.entries(neverExecuted)) {
  test(`200 with errors and no data for ${name}`, async () => {
    const response = await graphql(server, body);
    assert.equal(response.status, 200, response.text);
    assert.equal(response.headers.get('content-type'), 'application/json; charset=utf-8');
    const parsed = JSON.parse(response.text);
    assert.deepEqual(Object.keys(parsed), ['errors']);
    assert.ok(parsed.errors.length >= 1);
    for (const error of parsed.errors) {
      assert.equal(typeof error.message, 'string');
      assert.deepEqual(Object.keys(error), ['message', 'locations', 'path'].filter((key) => key in error));
    }
  });
}

test('the limits let a query of 192 fields at depth 3 through', async () => {
  const query = `{ ${Array.from({ length: 16 }, (_, i) => `c${i}: commentById(id: ${i + 1}) { ${WITH_USER} }`).join(' ')} }`;
  assert.equal(Object.keys(JSON.parse(await data({ query })).data).length, 16);
});

test('GET and other methods on /graphql are 405 problems', async () => {
  for (const method of ['GET', 'PUT', 'DELETE']) {
    const response = await get(server, '/graphql?query=%7B__typename%7D', { method });
    assert.equal(response.status, 405);
    assert.equal(response.headers.get('allow'), 'POST');
    assert.equal(response.text, problem(405, 'method not allowed'));
  }
});
