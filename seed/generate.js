// The study's Appendix C data, generated deterministically: Faker seeded with 1 and a fixed
// reference date, rows produced in the study's order. Scale 1 is a prefix of every larger scale.
import { createHash } from 'node:crypto';
import { Faker, en } from '@faker-js/faker';

export const SEED = 1;
export const REFERENCE_DATE = new Date('2021-06-01T00:00:00Z');
const BASE = 1000;
const THREADS_COMMENTED = 200;

export const COLUMNS = {
  user: ['user_id', 'name', 'email', 'phone', 'datemade', 'datelastupdated'],
  category: ['category_id', 'name', 'description', 'datemade', 'datelastupdated'],
  thread: ['thread_id', 'category_id', 'user_id', 'title', 'body', 'datemade', 'datelastupdated'],
  comment: ['comment_id', 'thread_id', 'user_id', 'body', 'datemade', 'datelastupdated'],
};

const day = (date) => date.toISOString().slice(0, 10);

export function generate(scale) {
  const faker = new Faker({ locale: [en], seed: SEED });
  faker.setDefaultRefDate(REFERENCE_DATE);
  const dates = () => [day(faker.date.past()), day(faker.date.future())];
  const rows = { user: [], category: [], thread: [], comment: [] };
  const addUser = (id) => rows.user.push(
    [id, faker.internet.username(), faker.internet.email(), faker.phone.number(), ...dates()]);
  const addComments = (userId) => {
    for (let threadId = 1; threadId <= THREADS_COMMENTED; threadId++) {
      rows.comment.push([rows.comment.length + 1, threadId, userId, faker.lorem.words(), ...dates()]);
    }
  };

  for (let i = 1; i <= BASE; i++) {
    addUser(i);
    rows.category.push([i, faker.lorem.word(), faker.lorem.words(), ...dates()]);
  }
  // As in the study, thread c belongs to category c and to user 1001 - c.
  for (let c = 1; c <= BASE; c++) {
    rows.thread.push([c, c, BASE + 1 - c, faker.lorem.word(), faker.lorem.words(), ...dates()]);
  }
  for (let userId = 1; userId <= BASE; userId++) addComments(userId);
  for (let userId = BASE + 1; userId <= BASE * scale; userId++) {
    addUser(userId);
    addComments(userId);
  }
  return rows;
}

// sha256 over every row as tab-separated text, table by table: the same rows give the same hex.
export function checksum(rows) {
  const hash = createHash('sha256');
  for (const table of Object.keys(COLUMNS)) {
    for (const row of rows[table]) hash.update(`${table}\t${row.join('\t')}\n`);
  }
  return hash.digest('hex');
}

// A fixed pseudo-random permutation (mulberry32, seed 1), so every framework gets the same ids.
export function shuffled(count, seed = SEED) {
  let state = seed >>> 0;
  const random = () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const ids = Array.from({ length: count }, (_, i) => i + 1);
  for (let i = count - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [ids[i], ids[j]] = [ids[j], ids[i]];
  }
  return ids;
}
