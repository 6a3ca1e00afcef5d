import * as z from 'zod';
import { createKindCatalog, catalog, type KindCatalog } from '../../src/resources/index.js';
import { refObject } from '../../src/resources/fields.js';
import type { Kind } from '../../src/resources/kind.js';

/**
 * A kind that refers to its own kind, so reference cycles can be built: no real kind can make one
 * today (the shipped kinds only refer "down"), but the validator detects them generically.
 */
export const nodeKind: Kind = {
  name: 'Node',
  description: 'Test kind: a node with an optional parent.',
  spec: z.strictObject({ parent: z.union([z.string(), refObject]).optional() }),
  nameField: undefined,
  references: { parent: 'Node' },
  secrets: {},
  setFields: {},
  uniqueFields: [],
  rules: [],
  checks: [],
  // Validation never reaches the API; a test kind has no live objects.
  live: {
    naturalKey: () => undefined,
    list: () => Promise.reject(new Error('Node is a test kind with no API')),
    read: () => Promise.reject(new Error('Node is a test kind with no API')),
    create: () => Promise.reject(new Error('Node is a test kind with no API')),
    update: () => Promise.reject(new Error('Node is a test kind with no API')),
    delete: () => Promise.reject(new Error('Node is a test kind with no API')),
    fields: { updatable: [], replaceOn: [], immutable: [], unreadable: [] },
    billableUpdateUsd: 0,
    replaceStrategy: 'create_before_delete',
    irreversibleDelete: false,
  },
  scope: { code: 'nd', preset: 'test' },
  snapshot: { collection: 'nodes', path: '/Node/', itemsKey: 'objects', idField: 'id', seed: 'existing', fields: {} },
};

/** The real kinds plus `Node`. */
export const cyclicCatalog: KindCatalog = createKindCatalog([...catalog.kinds, nodeKind]);
