// `npm run openapi`: docs/openapi.json written from the route table.

/** `npm run openapi`: writes docs/openapi.json from the route table and the handlers' schemas. */
import { writeFileSync } from 'node:fs';
import { buildOpenApi } from './local/openapi.js';

process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';
const doc = await buildOpenApi();
writeFileSync(new URL('../docs/openapi.json', import.meta.url), `${JSON.stringify(doc, null, 2)}\n`);
process.stdout.write(`docs/openapi.json: ${Object.keys(doc.paths as object).length} paths\n`);
