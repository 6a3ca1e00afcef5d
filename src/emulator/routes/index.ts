import type { Route } from '../router.js';
import type { AccountInitializer } from '../runtime.js';
import { applicationRoutes, seedApplications } from './applications.js';
import { brandRoutes } from './brands.js';
import { campaignNumberRoutes } from './campaign-numbers.js';
import { campaignRoutes } from './campaigns.js';
import { numberRoutes, seedNumbers } from './numbers.js';
import { originationUriRoutes } from './origination-uris.js';
import { seedProductionObjects } from './production-seed.js';
import { seedProfiles } from './profile-seed.js';
import { profileRoutes } from './profiles.js';
import { sipAclRoutes } from './sipauth-acls.js';
import { sipCredentialRoutes } from './sipauth-credentials.js';
import { trunkAclRoutes } from './trunk-acls.js';
import { trunkCredentialRoutes } from './trunk-credentials.js';
import { trunkRoutes } from './trunks.js';

/**
 * Every account route of the emulator, by area. An area is one module exporting its routes;
 * registering it here is all it takes. Order matters only where two patterns overlap
 * (a literal segment such as `Import` must come before `:campaign_id`).
 */
export const accountRoutes: Route[] = [
  ...sipCredentialRoutes,
  ...sipAclRoutes,
  ...applicationRoutes,
  ...trunkRoutes,
  ...trunkCredentialRoutes,
  ...trunkAclRoutes,
  ...originationUriRoutes,
  ...numberRoutes,
  ...profileRoutes,
  ...brandRoutes,
  ...campaignRoutes,
  ...campaignNumberRoutes,
];

/** Run for every new account: the fixed applications, numbers and 10DLC profiles it starts with. */
export const accountInitializers: AccountInitializer[] = [
  seedApplications,
  seedNumbers,
  seedProfiles,
  seedProductionObjects,
];
