// Turns a conformance run's results directory (conformance server -o DIR)
// into this repo's test lines, judged against the expected-failures file:
//
//   node tests/interop/conformance_report.mjs RESULTS_DIR BASELINE_YML
//
// Per scenario: `ok interop.conformance.S` when every check passed,
// `skip interop.conformance.S: ...` when the only failures are listed in the
// baseline (fixtures cellgate does not have), `FAIL interop.conformance.S:
// ...` for an unlisted FAILURE or WARNING, or a listed check that passed
// (stale entry).  A baseline entry for a scenario that did not run is a
// failure too.  Last line: RESULT passed=N failed=N skipped=N.
import fs from 'node:fs';
import path from 'node:path';
import { parse } from 'yaml';

const [dir, baselineFile] = process.argv.slice(2);
if (!dir || !baselineFile) {
  console.error('usage: conformance_report.mjs RESULTS_DIR BASELINE_YML');
  process.exit(2);
}

const baseline = parse(fs.readFileSync(baselineFile, 'utf8'))?.server ?? [];
const wholeScenario = new Set();
const perCheck = new Map(); // scenario -> Set(check id)
for (const entry of baseline) {
  const s = String(entry);
  const colon = s.indexOf(':');
  if (colon < 0) {
    wholeScenario.add(s);
  } else {
    const [scenario, id] = [s.slice(0, colon), s.slice(colon + 1)];
    if (!perCheck.has(scenario)) perCheck.set(scenario, new Set());
    perCheck.get(scenario).add(id);
  }
}

let passed = 0;
let failed = 0;
let skipped = 0;
const oneLine = (s) => String(s ?? '').replace(/\s+/g, ' ').slice(0, 300);
const bad = (c) => c.status === 'FAILURE' || c.status === 'WARNING';

// Directories are named server-<scenario>-<ISO timestamp>.
const ran = new Set();
const entries = fs.existsSync(dir) ? fs.readdirSync(dir).sort() : [];
for (const d of entries) {
  const m = /^server-(.+)-\d{4}-\d\d-\d\dT[\d-]+Z$/.exec(d);
  const file = path.join(dir, d, 'checks.json');
  if (!m || !fs.existsSync(file)) continue;
  const scenario = m[1];
  ran.add(scenario);
  let checks;
  try {
    checks = JSON.parse(fs.readFileSync(file, 'utf8'));
  } catch (e) {
    failed++;
    console.log(`FAIL interop.conformance.${scenario}: unreadable checks.json: ${oneLine(e.message)}`);
    continue;
  }
  const listed = perCheck.get(scenario) ?? new Set();
  const whole = wholeScenario.has(scenario);
  const unexpected = [];
  const expected = [];
  for (const c of checks.filter(bad)) {
    const why = `${c.id} ${c.status}: ${oneLine(c.errorMessage ?? JSON.stringify(c.details ?? {}))}`;
    (whole || listed.has(c.id) ? expected : unexpected).push(why);
  }
  const stale = [];
  if (whole && expected.length === 0) stale.push(`${scenario} (whole scenario)`);
  for (const id of listed) {
    if (checks.find((c) => c.id === id && c.status !== 'INFO')?.status === 'SUCCESS') {
      stale.push(`${scenario}:${id}`);
    }
  }
  if (unexpected.length > 0 || stale.length > 0) {
    failed++;
    const parts = [...unexpected];
    if (stale.length > 0) parts.push(`stale baseline entry, now passing: ${stale.join(', ')}`);
    console.log(`FAIL interop.conformance.${scenario}: ${parts.join('; ')}`);
  } else if (expected.length > 0) {
    skipped++;
    console.log(`skip interop.conformance.${scenario}: expected failure (needs the suite's fixtures): ${expected.join('; ')}`);
  } else {
    passed++;
    console.log(`ok interop.conformance.${scenario}`);
  }
}

for (const scenario of new Set([...wholeScenario, ...perCheck.keys()])) {
  if (!ran.has(scenario)) {
    failed++;
    console.log(`FAIL interop.conformance.${scenario}: listed in the baseline but did not run`);
  }
}
if (ran.size === 0) {
  failed++;
  console.log(`FAIL interop.conformance.results: no scenario results in ${dir}`);
}

console.log(`RESULT passed=${passed} failed=${failed} skipped=${skipped}`);
process.exit(failed === 0 ? 0 : 1);
