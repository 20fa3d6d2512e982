// The abuse limits of contract/README.md ("Limits", forum-node-common/graphql/limits.js) where
// contract/bad_input.json leaves off: a refused query runs no SQL, what a variable left out counts,
// fragments inside fragments, cycles, several broken limits and operations at once, and the
// limits read from the environment at start-up.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { APP_NAME, startServer, failedStart, graphql, startStatementRelay } from './helpers.js';

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

const GQL = 'application/graphql-response+json';
const TOO_MANY = 'query asks for 1001 comments; the maximum is 1000';

// A limit's error body: one error located at the operation's first token.
const rejection = (message, line = 1, column = 1) =>
  JSON.stringify({ errors: [{ message, locations: [{ line, column }] }] });

// Under the GraphQL media type, so that a rejection is a 400 and execution a 200.
async function ask(body, target = server) {
  const response = await graphql(target, body, { Accept: GQL });
  return { status: response.status, text: response.text, body: JSON.parse(response.text) };
}

async function rejected(body, message, target = server) {
  relay.clear();
  const response = await ask(body, target);
  assert.equal(response.status, 400, response.text);
  assert.equal(response.text, rejection(message));
  assert.deepEqual(relay.statements(), [], 'a rejected query runs no SQL');
}

async function executed(body, target = server) {
  const response = await ask(body, target);
  assert.equal(response.status, 200, response.text);
  assert.equal(response.body.errors, undefined, response.text);
  return response.body.data;
}

const aliases = (count, field) => Array.from({ length: count }, (_, i) => `a${i}: ${field}`).join(' ');

test('a query over the comment limit is refused before any SQL', async () => {
  await rejected({ query: '{ a: commentsByLimit(limit: 600) { id } b: commentsByUserId(id: 1, limit: 400) { id } '
    + 'c: commentById(id: 1) { id } }' }, TOO_MANY);
  await rejected({ query: `{ ${aliases(33, 'commentsByLimit(limit: 1000) { id body }')} }` },
    'query asks for 33000 comments; the maximum is 1000');
});

test('variables left out, empty or null: a variable counts its default', async () => {
  const query = 'query($n: Int = 1000) { a: commentsByLimit(limit: $n) { id } b: commentById(id: 1) { id } }';
  await rejected({ query, variables: {} }, TOO_MANY);
  await rejected({ query, variables: null }, TOO_MANY);
});

test('a variable\'s default counts inside an inline fragment of a spread fragment', async () => {
  await rejected({ query: 'query($n: Int = 501) { ...F ...F ...G } fragment F on Query { commentsByLimit(limit: 500) { id } } '
    + 'fragment G on Query { ... on Query { x: commentsByLimit(limit: $n) { id } } }' },
  'query asks for 1501 comments; the maximum is 1000');
});

test('a limit outside 1..1000 counts nothing, and its field fails without SQL', async () => {
  relay.clear();
  const response = await ask({ query: '{ a: commentsByLimit(limit: 1000) { id } b: commentsByLimit(limit: 5000) { id } }' });
  assert.equal(response.status, 200);
  assert.equal(response.body.errors[0].message, 'limit must be an integer from 1 to 1000');
  assert.deepEqual(relay.statements().filter((sql) => sql.includes('LIMIT 5000')), []);
});

test('a string for an Int variable counts 0, then fails to coerce', async () => {
  const text = await ask({ query: 'query($n: Int!) { a: commentsByLimit(limit: 1000) { id } b: commentsByLimit(limit: $n) { id } }',
    variables: { n: '1000' } });
  assert.equal(text.status, 400);
  assert.match(text.body.errors[0].message, /^Variable "\$n" got invalid value "1000"/);
});

test('a fragment cycle is the specified rule\'s error, counted as nothing', async () => {
  const response = await ask({ query: '{ commentById(id: 1) { ...A } } fragment A on Comment { ...B } fragment B on Comment { ...A }' });
  assert.equal(response.status, 400);
  assert.deepEqual(response.body.errors.map((error) => error.message), ['Cannot spread fragment "A" within itself via "B".']);
});

test('several broken limits: one error each, in the table\'s order, after graphql-js\'s own', async () => {
  const query = `{ nope ${aliases(200, '__typename')} c: commentsByLimit(limit: 1000) { id } d: commentById(id: 1) { id } `
    + '__schema { types { fields { type { ofType { name } } } } } }';
  const response = await ask({ query });
  assert.equal(response.status, 400);
  assert.deepEqual(response.body.errors.map((error) => error.message), [
    'Cannot query field "nope" on type "Query".',
    'query is nested 6 levels deep; the maximum is 5',
    'query selects 211 fields; the maximum is 200',
    'query asks for 1001 comments; the maximum is 1000',
  ]);
});

test('each operation is measured on its own and located at its first token', async () => {
  const query = 'query Small { commentById(id: 1) { id } }\n  query Large { a: commentsByLimit(limit: 1000) { id } '
    + 'b: commentById(id: 2) { id } }';
  const response = await ask({ query, operationName: 'Small' });
  assert.equal(response.status, 400);
  assert.equal(response.text, rejection('query asks for 1001 comments; the maximum is 1000', 2, 3));
});

test('GRAPHQL_MAX_* raise or lower the limits, and the messages follow', async () => {
  const raised = await startServer({ DB_PORT: String(relay.port), GRAPHQL_MAX_DEPTH: '8',
    GRAPHQL_MAX_FIELDS: '1000', GRAPHQL_MAX_COMMENTS: '2000' });
  try {
    const introspection = await executed({ query: '{ __schema { types { name fields { name type { name ofType { name ofType { name } } } } } } }' }, raised);
    assert.ok(introspection.__schema.types.some((type) => type.name === 'Comment'));
    await executed({ query: `{ ${aliases(1000, '__typename')} }` }, raised);
    await executed({ query: '{ a: commentsByLimit(limit: 1000) { id } b: commentsByLimit(limit: 1000) { id } }' }, raised);
    await rejected({ query: '{ a: commentsByLimit(limit: 1000) { id } b: commentsByLimit(limit: 1000) { id } c: commentById(id: 1) { id } }' },
      'query asks for 2001 comments; the maximum is 2000', raised);
    await rejected({ query: '{ __schema { types { fields { type { ofType { ofType { ofType { ofType { name } } } } } } } } }' },
      'query is nested 9 levels deep; the maximum is 8', raised);
  } finally {
    await raised.stop();
  }
  const lowered = await startServer({ DB_PORT: String(relay.port), GRAPHQL_MAX_COMMENTS: '10', GRAPHQL_MAX_DEPTH: '' });
  try {
    await executed({ query: '{ commentsByLimit(limit: 10) { id } }' }, lowered);
    await rejected({ query: '{ commentsByLimit(limit: 11) { id } }' }, 'query asks for 11 comments; the maximum is 10', lowered);
    // Empty is unset: the default depth.
    await rejected({ query: '{ __schema { types { fields { type { ofType { name } } } } } }' },
      'query is nested 6 levels deep; the maximum is 5', lowered);
  } finally {
    await lowered.stop();
  }
});

test('a bad GRAPHQL_MAX_* or DB_POOL_SIZE stops start-up with one line naming it', () => {
  const cases = [
    ['GRAPHQL_MAX_DEPTH', 'abc'], ['GRAPHQL_MAX_DEPTH', '0'], ['GRAPHQL_MAX_DEPTH', '-1'],
    ['GRAPHQL_MAX_DEPTH', '5.5'], ['GRAPHQL_MAX_DEPTH', '1e3'], ['GRAPHQL_MAX_DEPTH', ' 5'],
    ['GRAPHQL_MAX_DEPTH', '07'], ['GRAPHQL_MAX_DEPTH', '2147483648'],
    ['GRAPHQL_MAX_FIELDS', 'many'], ['GRAPHQL_MAX_COMMENTS', '1000.0'], ['DB_POOL_SIZE', 'many'],
  ];
  for (const [name, value] of cases) {
    const result = failedStart({ [name]: value });
    assert.equal(result.status, 1, `${name}=${value}`);
    assert.equal(result.stderr, `${APP_NAME}: ${name} must be a whole number from 1 to 2147483647, not '${value}'\n`);
    assert.equal(result.stdout, '');
  }
});
