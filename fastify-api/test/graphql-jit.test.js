// The jit variant (mercurius' jit option: a query is compiled with graphql-jit on its second use
// and runs compiled from then on) answers every request with the default's bytes and status.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { manifest, startServer, graphql, problem, closedPort } from '../../node-common/test/helpers.js';

const JIT_ENV = manifest.variants.find((variant) => variant.name === 'jit').env;
const GQL = { Accept: 'application/graphql-response+json' };

let plain;
let jit;
before(async () => {
  [plain, jit] = await Promise.all([startServer(), startServer(JIT_ENV)]);
});
after(async () => {
  await Promise.all([plain?.stop(), jit?.stop()]);
});

const FIELDS = 'id threadId userId body dateMade dateLastUpdated user { id name email phone }';
const TWO_OPERATIONS = 'query A { commentById(id: 1) { id } } query B { commentById(id: 3) { id } }';
const REQUESTS = [
  { query: `{ commentById(id: 1) { ${FIELDS} } }` },
  { query: `{ commentsByLimit(limit: 20) { ${FIELDS} } }` },
  { query: `query($id: ID!, $n: Int!) { commentsByUserId(id: $id, limit: $n) { ${FIELDS} } }`, variables: { id: 7, n: 3 } },
  { query: `query($id: ID!, $n: Int!) { commentsByUserId(id: $id, limit: $n) { ${FIELDS} } }`, variables: { id: '8', n: 2 } },
  { query: 'query($id: ID!) { a: commentById(id: $id) { id user { name } } b: commentByUserId(id: $id) { id } }', variables: { id: 5 } },
  { query: 'query($id: ID!) { a: commentById(id: $id) { id user { name } } b: commentByUserId(id: $id) { id } }', variables: { id: 200001 } },
  // Argument errors beside data, and null data.
  { query: '{ a: commentById(id: 0) { id } b: commentsByLimit(limit: 1001) { id } c: commentById(id: 2) { id } }' },
  { query: 'query($n: Int!) { commentsByLimit(limit: $n) { id } }', variables: { n: 0 } },
  // Variables that fail to coerce once the query is compiled.
  { query: 'query($n: Int!) { commentsByLimit(limit: $n) { id } }', variables: { n: 'x' } },
  { query: 'query($n: Int!) { commentsByLimit(limit: $n) { id } }', variables: {} },
  { query: 'query($n: Int!) { commentsByLimit(limit: $n) { id } }', variables: { n: 2 } },
  // One compiled query per text: the operation named by each request must be the one that runs.
  { query: TWO_OPERATIONS, operationName: 'A' },
  { query: TWO_OPERATIONS, operationName: 'B' },
  { query: TWO_OPERATIONS },
  { query: 'query A { __typename }', operationName: 'B' },
  { query: '{ __typename }', operationName: 'A' },
  { query: 'mutation { __typename }' },
];

test('three times over, each request gets the same answer compiled as not', async () => {
  for (let round = 1; round <= 3; round += 1) {
    for (const body of REQUESTS) {
      for (const headers of [{}, GQL]) {
        const [expected, got] = await Promise.all([graphql(plain, body, headers), graphql(jit, body, headers)]);
        const label = `round ${round}: ${JSON.stringify(body)} ${JSON.stringify(headers)}`;
        assert.equal(got.status, expected.status, label);
        assert.equal(got.headers.get('content-type'), expected.headers.get('content-type'), label);
        assert.equal(got.text, expected.text, label);
      }
    }
  }
});

// A compiled query reports a resolver's error its own way; a database error must still be a 503.
test('an unreachable database is a 503 problem, compiled or not', async () => {
  const down = await startServer({ ...JIT_ENV, DB_PORT: String(await closedPort()) });
  try {
    for (let round = 1; round <= 3; round += 1) {
      const response = await graphql(down, { query: '{ commentById(id: 1) { id user { id } } }' });
      assert.equal(response.status, 503, `round ${round}`);
      assert.equal(response.text, problem(503, 'the database is unreachable'), `round ${round}`);
    }
  } finally {
    await down.stop();
  }
});
