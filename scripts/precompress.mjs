// Writes `<file>.br` and `<file>.gz` next to each browser-bundle file, so the server sends
// them with Content-Encoding instead of compressing the 4 MB wasm on every request.
//   node scripts/precompress.mjs target/site/pkg
import { brotliCompressSync, gzipSync, constants } from 'node:zlib';
import { readdirSync, readFileSync, writeFileSync, statSync } from 'node:fs';
import { join } from 'node:path';

const dir = process.argv[2] ?? 'target/site/pkg';
for (const name of readdirSync(dir)) {
  if (!/\.(wasm|js|css)$/.test(name)) continue;
  const path = join(dir, name);
  const data = readFileSync(path);
  const br = brotliCompressSync(data, {
    params: { [constants.BROTLI_PARAM_QUALITY]: 11, [constants.BROTLI_PARAM_SIZE_HINT]: data.length },
  });
  writeFileSync(`${path}.br`, br);
  writeFileSync(`${path}.gz`, gzipSync(data, { level: 9 }));
  console.log(`${name}: ${statSync(path).size} bytes, brotli ${br.length}`);
}
