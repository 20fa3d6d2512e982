import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startServer, get, connectDatabase, expectedComments } from './helpers.js';

let server;
let db;
before(async () => {
  server = await startServer();
  db = await connectDatabase();
});
after(async () => {
  await server?.stop();
  await db?.end();
});

// Known rows of the seeded data set (seed 1, scale 1), read with the mariadb client.
const COMMENT_1 = '{"id":1,"threadId":1,"userId":1,"body":"praesentium cena alii","dateMade":"2021-03-04","dateLastUpdated":"2021-08-14"}';
const COMMENT_200000 = '{"id":200000,"threadId":200,"userId":1000,"body":"dolor angulus ambulo","dateMade":"2020-07-06","dateLastUpdated":"2022-03-25"}';
const USER_1000_FIRST = '{"id":199801,"threadId":1,"userId":1000,"body":"amitto desidero adhaero","dateMade":"2020-07-14","dateLastUpdated":"2022-03-23","user":{"id":1000,"name":"John98","email":"Emely57@hotmail.com","phone":"1-562-339-8826 x21792"}}';
const USER_2_TWO = '[{"id":201,"threadId":1,"userId":2,"body":"supra creptio cetera","dateMade":"2021-01-16","dateLastUpdated":"2021-07-18","user":{"id":2,"name":"Hipolito1","email":"Alyssa_McKenzie@gmail.com","phone":"(505) 759-5911 x83193"}},'
  + '{"id":202,"threadId":2,"userId":2,"body":"stultus arbor turba","dateMade":"2020-08-27","dateLastUpdated":"2022-03-20","user":{"id":2,"name":"Hipolito1","email":"Alyssa_McKenzie@gmail.com","phone":"(505) 759-5911 x83193"}}]';

async function okJson(path) {
  const response = await get(server, path);
  assert.equal(response.status, 200, `${path}: ${response.text}`);
  assert.equal(response.headers.get('content-type'), 'application/json; charset=utf-8');
  assert.equal(response.headers.get('etag'), null);
  assert.equal(response.headers.get('x-powered-by'), null);
  assert.equal(response.headers.get('keep-alive'), 'timeout=130', 'keep-alive as long as Kestrel\'s');
  return response.text;
}

test('exact bytes of known rows', async () => {
  assert.equal(await okJson('/rest/comment/1'), COMMENT_1);
  assert.equal(await okJson('/rest/comment/200000'), COMMENT_200000);
  assert.equal(await okJson('/rest/user/1000/comment'), USER_1000_FIRST);
  assert.equal(await okJson('/rest/user/2/comments/2'), USER_2_TWO);
});

test('rows 1, joins 0: comment by id matches the database', async () => {
  for (const id of [1, 777, 123456]) {
    const [expected] = await expectedComments(db, 'WHERE c.comment_id = ?', [id], 1, false);
    assert.equal(await okJson(`/rest/comment/${id}`), JSON.stringify(expected));
  }
});

test('rows 50 and 100, joins 0: the first comments by id', async () => {
  for (const limit of [1, 50, 100]) {
    const expected = await expectedComments(db, '', [], limit, false);
    assert.equal(expected.length, limit);
    assert.equal(await okJson(`/rest/comments/${limit}`), JSON.stringify(expected));
  }
});

test('rows 1, joins 1: a user\'s first comment with its user', async () => {
  for (const id of [1, 500, 1000]) {
    const [expected] = await expectedComments(db, 'WHERE c.user_id = ?', [id], 1, true);
    assert.equal(await okJson(`/rest/user/${id}/comment`), JSON.stringify(expected));
  }
});

test('rows 1, 50 and 100, joins 1: a user\'s comments with their user', async () => {
  for (const limit of [1, 50, 100]) {
    const expected = await expectedComments(db, 'WHERE c.user_id = ?', [42], limit, true);
    assert.equal(expected.length, limit);
    assert.equal(await okJson(`/rest/user/42/comments/${limit}`), JSON.stringify(expected));
  }
});

test('the largest limit returns what the user has (200) in comment order', async () => {
  const comments = JSON.parse(await okJson('/rest/user/3/comments/1000'));
  assert.equal(comments.length, 200);
  assert.deepEqual(comments.map((c) => c.id), Array.from({ length: 200 }, (_, i) => 401 + i));
});

test('healthz answers ok', async () => {
  assert.equal(await okJson('/healthz'), '{"status":"ok"}');
});
