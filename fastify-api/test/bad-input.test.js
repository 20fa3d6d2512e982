import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startServer, get, problem, request } from './helpers.js';

let server;
before(async () => { server = await startServer(); });
after(async () => { await server?.stop(); });

const ID_RULE = 'id must be an integer from 1 to 2147483647';
const LIMIT_RULE = 'limit must be an integer from 1 to 1000';

async function expectProblem(path, status, detail, init) {
  const response = await get(server, path, init);
  assert.equal(response.status, status, path);
  assert.equal(response.headers.get('content-type'), 'application/problem+json; charset=utf-8');
  assert.equal(response.text, problem(status, detail), path);
  return response;
}

const BAD_IDS = ['0', '-1', '%2B1', '%201', '1%20', '1.0', '0x1', '1e3', '007', 'abc',
  '2147483648', '99999999999999999999', '1_000'];
const BAD_LIMITS = ['0', '-5', '1001', '1.5', 'abc', '010', '%2B5', '2147483648'];

test('ids that are not integers from 1 to 2147483647 are 400 on every id route', async () => {
  for (const id of BAD_IDS) {
    await expectProblem(`/rest/comment/${id}`, 400, ID_RULE);
    await expectProblem(`/rest/user/${id}/comment`, 400, ID_RULE);
    await expectProblem(`/rest/user/${id}/comments/5`, 400, ID_RULE);
  }
});

test('limits that are not integers from 1 to 1000 are 400', async () => {
  for (const limit of BAD_LIMITS) {
    await expectProblem(`/rest/comments/${limit}`, 400, LIMIT_RULE);
    await expectProblem(`/rest/user/1/comments/${limit}`, 400, LIMIT_RULE);
  }
});

test('the edges of the ranges are accepted', async () => {
  assert.equal((await get(server, '/rest/comments/1000')).status, 200);
  await expectProblem('/rest/comment/2147483647', 404, 'comment 2147483647 does not exist');
});

test('unknown rows are 404 problems', async () => {
  await expectProblem('/rest/comment/200001', 404, 'comment 200001 does not exist');
  await expectProblem('/rest/user/1001/comment', 404, 'user 1001 has no comments');
  await expectProblem('/rest/user/2147483647/comments/10', 404, 'user 2147483647 has no comments');
});

test('unknown paths are 404 and wrong methods 405 with Allow', async () => {
  for (const path of ['/', '/rest', '/rest/comment', '/rest/comment/1/extra', '/rest/users/1/comment']) {
    await expectProblem(path, 404, 'no such endpoint');
  }
  for (const path of ['/rest/comment/1', '/rest/comments/5', '/rest/user/1/comment',
    '/rest/user/1/comments/5', '/healthz']) {
    for (const method of ['POST', 'PUT', 'DELETE']) {
      const response = await expectProblem(path, 405, 'method not allowed', { method });
      assert.equal(response.headers.get('allow'), 'GET');
    }
  }
});

test('an undecodable escape is text that breaks the id or limit rule, as on Kestrel', async () => {
  await expectProblem('/rest/comment/%zz', 400, ID_RULE);
  await expectProblem('/rest/comment/1%ff', 400, ID_RULE);
  await expectProblem('/rest/comments/%zz', 400, LIMIT_RULE);
  await expectProblem('/rest/user/%zz/comment', 400, ID_RULE);
  await expectProblem('/rest/user/%zz/comments/%zz', 400, ID_RULE);
  await expectProblem('/rest/user/1/comments/%zz?x=%zz', 400, LIMIT_RULE);
  await expectProblem('/rest/%zz/1', 404, 'no such endpoint');
  // A valid escape is decoded: %31 is 1.
  assert.equal((await get(server, '/rest/comment/%31')).status, 200);
});

// Fastify would parse these bodies (400), refuse their Content-Type (415), want one on QUERY (400)
// or not know the method (404) before the route could say 405; as on the other sides, it is 405.
test('a wrong method is 405 whatever its body and Content-Type', async () => {
  for (const [contentType, body] of [['application/json', '{'], ['text/plain', 'x'], ['', 'x'], ['no type', '']]) {
    const response = await expectProblem('/rest/comment/1', 405, 'method not allowed',
      { method: 'POST', headers: { 'Content-Type': contentType }, body });
    assert.equal(response.headers.get('allow'), 'GET', contentType);
  }
  for (const path of ['/rest/comment/1', '/healthz']) {
    for (const method of ['QUERY', 'PROPFIND', 'OPTIONS', 'TRACE']) {
      const response = await request(server, { method, path });
      assert.equal(response.status, 405, `${method} ${path}`);
      assert.equal(response.body.toString(), problem(405, 'method not allowed'), `${method} ${path}`);
    }
  }
});

// Express and Kestrel take an id of any length to the id rule; Fastify's router would stop at 100.
test('a very long id is the id rule\'s 400, not a 404', async () => {
  await expectProblem(`/rest/comment/${'9'.repeat(500)}`, 400, ID_RULE);
  await expectProblem(`/REST/Comment/${'1'.repeat(150)}/`, 400, ID_RULE);
});
