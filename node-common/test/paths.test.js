// The REST paths beyond contract/bad_input.json: escapes the rules must take as text, methods and
// bodies a framework would answer on its own before the route says 405, ids longer than a router
// likes.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startServer, get, request, problem } from './helpers.js';

let server;
before(async () => { server = await startServer(); });
after(async () => { await server?.stop(); });

const ID_RULE = 'id must be an integer from 1 to 2147483647';
const LIMIT_RULE = 'limit must be an integer from 1 to 1000';

async function expectProblem(path, status, detail, init) {
  const response = await get(server, path, init);
  assert.equal(response.status, status, path);
  assert.equal(response.headers.get('content-type'), 'application/problem+json; charset=utf-8', path);
  assert.equal(response.text, problem(status, detail), path);
  return response;
}

test('an undecodable escape is text that breaks the id or limit rule, as on Kestrel', async () => {
  // %ff is a valid escape of a byte that is not UTF-8.
  await expectProblem('/rest/comment/1%ff', 400, ID_RULE);
  await expectProblem('/rest/user/%zz/comment', 400, ID_RULE);
  await expectProblem('/rest/user/%zz/comments/%zz', 400, ID_RULE);
  // The query string is not the path's: left as it is, and never read.
  await expectProblem('/rest/user/1/comments/%zz?x=%zz', 400, LIMIT_RULE);
  await expectProblem('/rest/%zz/1', 404, 'no such endpoint');
  // A valid escape is decoded: %31 is 1.
  assert.equal((await get(server, '/rest/comment/%31')).status, 200);
});

// A framework would parse these bodies (400), refuse their Content-Type (415), want one on QUERY
// (400) or not know the method (404) before the route could say 405; as on every side, it is 405.
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
      assert.equal(response.headers.allow, 'GET', `${method} ${path}`);
      assert.equal(response.body.toString(), problem(405, 'method not allowed'), `${method} ${path}`);
    }
  }
});

// Kestrel takes an id of any length to the id rule; a router's parameter limit would make it a 404.
test('a very long id is the id rule\'s 400, in any letter case and with a trailing slash', async () => {
  await expectProblem(`/rest/comment/${'9'.repeat(500)}`, 400, ID_RULE);
  await expectProblem(`/REST/Comment/${'1'.repeat(150)}/`, 400, ID_RULE);
});
