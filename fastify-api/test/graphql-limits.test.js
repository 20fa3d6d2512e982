// The abuse limits of contract/README.md ("Limits"): depth 5, 200 fields, 1,000 comments, each at
// its edge; rejected before any SQL; read from the environment at start-up.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startServer, graphql, startStatementRelay } from './helpers.js';

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
const LIMIT_RULE = 'limit must be an integer from 1 to 1000';

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

test('depth: 5 levels pass, 6 do not, fragments counted where they are spread', async () => {
  await executed({ query: '{ __schema { types { fields { type { name } } } } }' });
  await rejected({ query: '{ __schema { types { fields { type { ofType { name } } } } } }' },
    'query is nested 6 levels deep; the maximum is 5');
  await executed({ query: '{ __schema { ...T } } fragment T on __Schema { types { fields { type { name } } } }' });
  await rejected({ query: '{ __schema { ...T } } fragment T on __Schema { types { fields { type { ...O } } } } '
    + 'fragment O on __Type { ofType { name } }' }, 'query is nested 6 levels deep; the maximum is 5');
});

test('fields: 200 pass, 201 do not, __typename and spread fragments included', async () => {
  await executed({ query: `{ ${aliases(200, '__typename')} }` });
  await rejected({ query: `{ ${aliases(201, '__typename')} }` }, 'query selects 201 fields; the maximum is 200');
  const twice = `fragment F on Query { ${aliases(100, '__typename')} }`;
  await executed({ query: `{ ...F ... on Query { ...F } } ${twice}` });
  await rejected({ query: `{ ...F ...F __typename } ${twice}` }, 'query selects 201 fields; the maximum is 200');
});

const TOO_MANY = 'query asks for 1001 comments; the maximum is 1000';

test('comments through literals and aliases: 1,000 pass, 1,001 do not', async () => {
  const full = await executed({ query: '{ a: commentsByLimit(limit: 600) { id } b: commentsByUserId(id: 1, limit: 400) { id } }' });
  assert.equal(full.a.length + full.b.length, 800, 'user 1 has 200 comments');
  await rejected({ query: '{ a: commentsByLimit(limit: 600) { id } b: commentsByUserId(id: 1, limit: 400) { id } '
    + 'c: commentById(id: 1) { id } }' }, TOO_MANY);
  await executed({ query: '{ a: commentsByLimit(limit: 999) { id } b: commentByUserId(id: 1) { id } }' });
  await rejected({ query: '{ a: commentsByLimit(limit: 999) { id } b: commentByUserId(id: 1) { id } '
    + 'c: commentById(id: 1) { id } }' }, TOO_MANY);
});

test('comments through a variable\'s value and a variable\'s default', async () => {
  const query = 'query($n: Int = 1000) { a: commentsByLimit(limit: $n) { id } b: commentById(id: 1) { id } }';
  await executed({ query, variables: { n: 999 } });
  await rejected({ query, variables: { n: 1000 } }, TOO_MANY);
  await rejected({ query }, TOO_MANY);
  await rejected({ query, variables: {} }, TOO_MANY);
  await rejected({ query, variables: null }, TOO_MANY);
  const required = 'query($n: Int!, $m: Int!) { a: commentsByLimit(limit: $n) { id } b: commentsByUserId(id: 2, limit: $m) { id } }';
  await executed({ query: required, variables: { n: 500, m: 500 } });
  await rejected({ query: required, variables: { n: 500, m: 501 } }, TOO_MANY);
});

test('comments through fragments, counted each time they are spread', async () => {
  const fragment = 'fragment F on Query { commentsByLimit(limit: 500) { id } }';
  await executed({ query: `{ ...F ...F } ${fragment}` });
  await rejected({ query: `{ ...F ...F x: commentByUserId(id: 1) { id } } ${fragment}` }, TOO_MANY);
  await rejected({ query: `query($n: Int = 501) { ...F ...F ...G } ${fragment} `
    + 'fragment G on Query { ... on Query { x: commentsByLimit(limit: $n) { id } } }' },
  'query asks for 1501 comments; the maximum is 1000');
});

test('33 aliases of commentsByLimit(limit: 1000) are rejected without SQL', async () => {
  await rejected({ query: `{ ${aliases(33, 'commentsByLimit(limit: 1000) { id body }')} }` },
    'query asks for 33000 comments; the maximum is 1000');
});

test('a limit outside 1..1000 counts nothing: the field fails on its own, without SQL for it', async () => {
  relay.clear();
  const literal = await ask({ query: '{ a: commentsByLimit(limit: 1000) { id } b: commentsByLimit(limit: 5000) { id } }' });
  assert.equal(literal.status, 200);
  assert.equal(literal.body.errors[0].message, LIMIT_RULE);
  assert.deepEqual(literal.body.data, null);
  assert.equal(relay.statements().filter((sql) => sql.includes('LIMIT 5000')).length, 0);
  const variable = await ask({ query: 'query($n: Int!) { a: commentsByLimit(limit: 1000) { id } b: commentsByLimit(limit: $n) { id } }',
    variables: { n: 2000 } });
  assert.equal(variable.status, 200);
  assert.equal(variable.body.errors[0].message, LIMIT_RULE);
  const text = await ask({ query: 'query($n: Int!) { a: commentsByLimit(limit: 1000) { id } b: commentsByLimit(limit: $n) { id } }',
    variables: { n: '1000' } });
  assert.equal(text.status, 400, 'a string fails to coerce, after counting 0');
  assert.match(text.body.errors[0].message, /^Variable "\$n" got invalid value "1000"/);
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

test('a bad GRAPHQL_MAX_* stops start-up with one line naming it', async () => {
  const cases = [
    ['GRAPHQL_MAX_DEPTH', 'abc'], ['GRAPHQL_MAX_DEPTH', '0'], ['GRAPHQL_MAX_DEPTH', '-1'],
    ['GRAPHQL_MAX_DEPTH', '5.5'], ['GRAPHQL_MAX_DEPTH', '1e3'], ['GRAPHQL_MAX_DEPTH', ' 5'],
    ['GRAPHQL_MAX_DEPTH', '07'], ['GRAPHQL_MAX_DEPTH', '2147483648'],
    ['GRAPHQL_MAX_FIELDS', 'many'], ['GRAPHQL_MAX_COMMENTS', '1000.0'],
  ];
  for (const [name, value] of cases) {
    await assert.rejects(startServer({ [name]: value }), {
      message: `server.js exited with 1:\nfastify-api: ${name} must be a whole number from 1 to 2147483647, not '${value}'\n`,
    }, `${name}=${value}`);
  }
});
