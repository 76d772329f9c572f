// Prints a parquet file as CSV (header row, then one line per row) for tools/serving_gemm.py.
// Needs the npm packages hyparquet and hyparquet-compressors (zstd), installed outside the
// repository: npm install --prefix ~/.cache/gpuplan/parquet hyparquet hyparquet-compressors,
// then NODE_PATH=~/.cache/gpuplan/parquet/node_modules.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
const { parquetReadObjects } = await import(require.resolve('hyparquet'));
const { compressors } = await import(require.resolve('hyparquet-compressors'));

const path = process.argv[2];
if (!path) {
  console.error('usage: node tools/parquet_csv.mjs FILE.parquet');
  process.exit(2);
}
const bytes = readFileSync(path);
const file = bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength);
const rows = await parquetReadObjects({ file, compressors });
if (rows.length === 0) process.exit(0);
const columns = Object.keys(rows[0]);
const cell = (v) => {
  const s = typeof v === 'bigint' ? v.toString() : String(v);
  return /[",\n]/.test(s) ? '"' + s.replaceAll('"', '""') + '"' : s;
};
const lines = [columns.join(',')];
for (const row of rows) lines.push(columns.map((c) => cell(row[c])).join(','));
process.stdout.write(lines.join('\n') + '\n');
