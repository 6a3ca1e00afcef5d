#!/usr/bin/env node
// Writes the generated JSON Schemas under schemas/ from the built code (run `npm run schemas`,
// which builds first). A test fails when a committed schema differs from what this writes.
import { writeFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { renderManifestJsonSchema } from '../dist/manifest/json-schema.js';
import { catalog } from '../dist/resources/index.js';
import { renderPlanJsonSchema } from '../dist/engine/plan-schema.js';
import { renderDriftJsonSchema } from '../dist/render/drift-schema.js';
import { renderValidateJsonSchema } from '../dist/manifest/validate-schema.js';

const schemas = [
  ['manifest.schema.json', () => renderManifestJsonSchema(catalog)],
  ['plan.schema.json', () => renderPlanJsonSchema()],
  ['validate.schema.json', () => renderValidateJsonSchema()],
  ['drift.schema.json', () => renderDriftJsonSchema()],
];

for (const [name, render] of schemas) {
  const target = fileURLToPath(new URL(`../schemas/${name}`, import.meta.url));
  await writeFile(target, render());
  process.stdout.write(`wrote schemas/${name}\n`);
}
