// Reads the schema an implementation serves with graphql-js's standard introspection query and
// compares it, printed, with the contract's SDL:
//   node contract/introspect.mjs http://127.0.0.1:3000/graphql [path/to/schema.graphql]
// On a difference it prints a line diff (- the contract, + the server) and exits 1. The query is
// deeper and wider than the limits the benchmark runs with: start the app with
// GRAPHQL_MAX_DEPTH=15 GRAPHQL_MAX_FIELDS=5000 GRAPHQL_MAX_COMMENTS=1000.
import { buildClientSchema, getIntrospectionQuery, printSchema } from 'graphql';
import { CONTRACT_SDL, contractSchema } from './sdl.mjs';

const [url, sdlPath = CONTRACT_SDL] = process.argv.slice(2);
if (!url) {
  console.error('usage: node contract/introspect.mjs <url of the /graphql endpoint> [schema.graphql]');
  process.exit(2);
}

// Lines of `a` and `b` in order, each marked ' ' (both), '-' (only a) or '+' (only b).
function lineDiff(a, b) {
  const common = Array.from({ length: a.length + 1 }, () => new Array(b.length + 1).fill(0));
  for (let i = a.length - 1; i >= 0; i--) {
    for (let j = b.length - 1; j >= 0; j--) {
      common[i][j] = a[i] === b[j] ? common[i + 1][j + 1] + 1 : Math.max(common[i + 1][j], common[i][j + 1]);
    }
  }
  const lines = [];
  let i = 0;
  let j = 0;
  while (i < a.length || j < b.length) {
    if (i < a.length && j < b.length && a[i] === b[j]) lines.push(`  ${a[i++]}`), j++;
    else if (j < b.length && (i === a.length || common[i][j + 1] >= common[i + 1][j])) lines.push(`+ ${b[j++]}`);
    else lines.push(`- ${a[i++]}`);
  }
  return lines;
}

const response = await fetch(url, {
  method: 'POST',
  headers: { 'content-type': 'application/json', accept: 'application/graphql-response+json' },
  body: JSON.stringify({ query: getIntrospectionQuery() }),
});
const text = await response.text();
let result;
try {
  result = JSON.parse(text);
} catch {
  result = {};
}
if (response.status !== 200 || result.errors || !result.data) {
  console.log(`introspection failed: ${response.status} ${text.slice(0, 300)}`);
  process.exit(1);
}
const served = printSchema(buildClientSchema(result.data));
const expected = printSchema(contractSchema(sdlPath));
if (served === expected) {
  console.log(`introspect ${url}: the served schema is the contract's.`);
  process.exit(0);
}
console.log(`--- ${sdlPath}\n+++ served by ${url}`);
console.log(lineDiff(expected.split('\n'), served.split('\n')).join('\n'));
process.exit(1);
