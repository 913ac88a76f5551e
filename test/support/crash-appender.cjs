// Child process for the crash-safety test: appends to the event log through the built EventStore as fast as it can
// (DATABASE_URL, CONCURRENCY) and prints one line per acknowledged (committed) append: `ack <stream> <first offset>`.
// Every third append is a multi-event append (update, non-update, update) that must be all-or-nothing. The parent
// SIGKILLs it mid-load.
'use strict';
const path = require('node:path');
const { EventStore, openDatabase } = require(path.resolve(__dirname, '../../dist/libs/store/src'));

const database = openDatabase(process.env.DATABASE_URL, { max: 4 });
const store = new EventStore(database.db, { participantId: 'crash::1220' + 'ab'.repeat(32) });
const concurrency = Number(process.env.CONCURRENCY || 32);
const update = (stream, i) => ({
  kind: 'Transaction',
  synchronizerId: 'sync::1220' + 'cd'.repeat(32),
  parties: [`p${i % 5}`],
});

let n = 0;
async function worker(w) {
  for (let k = 0; ; k++) {
    const stream = `probe:${w}:${k}`;
    const i = n++;
    const events =
      i % 3 === 0
        ? [
            { type: 'CrashProbe', stream, data: { w, k, part: 0 }, update: update(stream, i) },
            { type: 'CrashProbeNote', stream, data: { w, k, part: 1 } },
            { type: 'CrashProbe', stream, data: { w, k, part: 2 }, update: update(stream, i + 1) },
          ]
        : [{ type: 'CrashProbe', stream, data: { w, k, part: 0 }, update: update(stream, i) }];
    const committed = await store.append(events);
    process.stdout.write(`ack ${stream} ${committed.length} ${committed[0].update.offset}\n`);
  }
}
for (let w = 0; w < concurrency; w++) worker(w).catch((e) => process.stderr.write(`worker ${w}: ${e.message}\n`));
