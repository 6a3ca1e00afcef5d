import { z } from 'zod';
import { createRegistry, registry, type KindRegistry } from '../../src/resources/index.js';
import { refObject } from '../../src/resources/fields.js';
import type { Kind } from '../../src/resources/kind.js';

/**
 * A kind that refers to its own kind, so reference cycles can be built: no real kind can make one
 * today (DESIGN.md's kinds only refer "down"), but the validator detects them generically.
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
};

/** The real kinds plus `Node`. */
export const cyclicRegistry: KindRegistry = createRegistry([...registry.kinds, nodeKind]);
