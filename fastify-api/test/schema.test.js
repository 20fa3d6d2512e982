import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';

// The app ships its own copy of the SDL (its Docker build sees only this folder); it must stay
// the contract's, word for word.
test('the served SDL is the contract\'s', () => {
  const read = (path) => readFileSync(new URL(path, import.meta.url), 'utf8');
  assert.equal(read('../graphql/schema.graphql'), read('../../contract/schema.graphql'));
});
