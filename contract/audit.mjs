// graphql-http's GraphQL-over-HTTP audits against one running endpoint:
//   node contract/audit.mjs http://127.0.0.1:3000/graphql
// Exits 1, listing them, if any MUST or SHOULD audit fails. A failed MAY audit is only a warning:
// the contract answers GET with 405 on purpose, so the GET audits (all MAY) are expected to fail.
import { serverAudits } from 'graphql-http';

const url = process.argv[2];
if (!url) {
  console.error('usage: node contract/audit.mjs <url of the /graphql endpoint>');
  process.exit(2);
}

async function describe(result) {
  let body = '';
  try {
    body = (await result.response.text()).slice(0, 200);
  } catch {
    // the audit has read the body already; its reason says what was wrong
  }
  return `${result.id} ${result.name}: ${result.reason}` +
    `\n    got ${result.response.status} ${result.response.headers.get('content-type')} ${body}`;
}

const results = [];
for (const audit of serverAudits({ url })) {
  results.push(await audit.fn());  // one at a time, as a client would send them
}
const failed = results.filter((r) => r.status === 'error' || r.status === 'warn');
const optional = results.filter((r) => r.status === 'notice');
for (const result of optional) console.log(`warning (MAY): ${await describe(result)}`);
for (const result of failed) console.log(`FAILED: ${await describe(result)}`);
const passed = results.length - failed.length - optional.length;
console.log(`audit ${url}: ${passed} passed, ${optional.length} MAY not met, ` +
  `${failed.length} MUST/SHOULD failed (of ${results.length}).`);
process.exit(failed.length ? 1 : 0);
