import type { Route } from '../router.js';
import type { AccountInitializer } from '../runtime.js';

/**
 * Every account route of the emulator, by area. An area is one module exporting its routes;
 * registering it here is all it takes. Order matters only where two patterns overlap
 * (a literal segment such as `Import` must come before `:campaign_id`).
 */
export const accountRoutes: Route[] = [];

/** Run for every new account (e.g. the seeded 10DLC profiles). */
export const accountInitializers: AccountInitializer[] = [];
