// Reads the schema an implementation serves with graphql-js's standard introspection query and
// compares it, printed, with the contract's SDL:
//   node contract/introspect.mjs http://127.0.0.1:3000/graphql [path/to/schema.graphql] [--declared TYPE]...
// Both schemas are sorted first (lexicographicSortSchema): the order of types and fields carries
// no meaning, and libraries list them in their own. A type named by --declared (a deviation its
// framework.json declares) is left out of the comparison and printed as declared; one that does not
// differ fails, so that the declaration is removed. On a difference it prints a line diff
// (- the contract, + the server) and exits 1. The query is deeper and wider than the limits the
// benchmark runs with: start the app with
// GRAPHQL_MAX_DEPTH=15 GRAPHQL_MAX_FIELDS=5000 GRAPHQL_MAX_COMMENTS=1000.
import {
  buildClientSchema, getIntrospectionQuery, GraphQLSchema, lexicographicSortSchema, printSchema, printType,
} from 'graphql';
import { CONTRACT_SDL, contractSchema } from './sdl.mjs';

const USAGE = 'usage: node contract/introspect.mjs <url of the /graphql endpoint> [schema.graphql] [--declared TYPE]...';
const declared = [];
const positional = [];
for (let args = process.argv.slice(2); args.length;) {
  const arg = args.shift();
  if (arg === '--declared') declared.push(args.shift());
  else positional.push(arg);
}
const [url, sdlPath = CONTRACT_SDL] = positional;
if (!url || positional.length > 2 || declared.some((name) => !name)) {
  console.error(USAGE);
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

// A type as printSchema prints it, or null where the schema lacks it.
function definition(schema, name) {
  const type = schema.getType(name);
  return type ? printType(type) : null;
}

// The schema without the declared types (a type still referenced by a field stays: that field is
// a difference of its own), sorted again since rebuilding it reorders the types.
function undeclared(schema) {
  const config = schema.toConfig();
  return lexicographicSortSchema(new GraphQLSchema({
    ...config, types: config.types.filter((type) => !declared.includes(type.name)),
  }));
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
const servedSchema = lexicographicSortSchema(buildClientSchema(result.data));
const expectedSchema = lexicographicSortSchema(contractSchema(sdlPath));
const unseen = declared.filter((name) => definition(servedSchema, name) === definition(expectedSchema, name));
for (const name of declared.filter((n) => !unseen.includes(n))) {
  const where = definition(expectedSchema, name) === null ? 'only the server has it'
    : definition(servedSchema, name) === null ? 'only the contract has it' : 'it differs';
  console.log(`declared: type ${name} (${where})`);
}
for (const name of unseen) {
  console.log(`declared but not seen: type ${name} is the same on both sides; remove it from framework.json's deviations`);
}
const served = printSchema(undeclared(servedSchema));
const expected = printSchema(undeclared(expectedSchema));
if (served === expected && !unseen.length) {
  console.log(`introspect ${url}: the served schema is the contract's`
    + (declared.length ? `, but for ${declared.length} declared type(s).` : '.'));
  process.exit(0);
}
if (served !== expected) {
  console.log(`--- ${sdlPath}\n+++ served by ${url}`);
  console.log(lineDiff(expected.split('\n'), served.split('\n')).join('\n'));
}
process.exit(1);
