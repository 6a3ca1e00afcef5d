import * as z from 'zod';
import { describe, expect, it } from 'vitest';
import { buildPlan } from '../../src/engine/planner.js';
import { plannerKinds } from '../../src/engine/kinds.js';
import { neededKinds } from '../../src/engine/needed-kinds.js';
import type { Plan } from '../../src/engine/plan-types.js';
import { startEmulator } from '../../src/emulator/index.js';
import { json } from '../../src/emulator/http.js';
import type { Route } from '../../src/emulator/router.js';
import { accountRoutes } from '../../src/emulator/routes/index.js';
import { readAccountRecords } from '../../src/resources/account-records.js';
import { reference } from '../../src/resources/fields.js';
import { decidedKinds, decisionTarget } from '../../src/resources/registration.js';
import { textFields } from '../../src/resources/snapshot-record.js';
import { snapshotDocument } from '../../src/run/snapshot-format.js';
import { clientFor } from '../support/emulator.js';
import { catalog, createKindCatalog, type Kind } from '../../src/resources/index.js';
import type { LiveObject, LiveSide } from '../../src/resources/live-side.js';
import { renderText } from '../../src/render/text.js';
import {
  describeScope,
  parseScope,
  scopeFromCodes,
  scopeHolds,
  scopeSuffix,
  scopeVocabulary,
} from '../../src/resources/ownership-scope.js';
import { reasonsToHold, registryEntries } from '../../src/serve/safe-plan.js';
import { callbackTarget } from '../../src/serve/server.js';
import { desired, ledgerWith, live, planInputs } from './builders.js';
import { change, plan as planOf } from '../support/plan.js';

// A kind telform does not have — a toll-free number: calls through a trunk, messages under a campaign,
// and a verification the registry decides — declared in one object and added to a catalog. The blast
// radius and serve pick it up from the catalog; no engine or serve code names it.
const noIo = (): never => {
  throw new Error('the plan must not do I/O');
};
const tollFreeLive: LiveSide = {
  naturalKey: (spec) => (typeof spec['number'] === 'string' ? spec['number'] : undefined),
  list: noIo,
  read: noIo,
  create: noIo,
  update: noIo,
  delete: noIo,
  fields: { updatable: ['app_id', 'campaign_id'], replaceOn: [], immutable: [], unreadable: [] },
  billableUpdateUsd: 0,
  replaceStrategy: 'create_before_delete',
  irreversibleDelete: false,
};
const tollFreeNumber = {
  name: 'TollFreeNumber',
  description: 'A toll-free number (hypothetical): where its calls go and the campaign its messages go under.',
  spec: z.strictObject({
    number: z.string(),
    app_id: reference(z.string(), 'Trunk', 'an inbound trunk id').optional(),
    campaign_id: reference(z.string(), 'Campaign', 'a campaign id').optional(),
  }),
  nameField: undefined,
  references: { app_id: 'Trunk', campaign_id: 'Campaign' },
  secrets: {},
  setFields: {},
  uniqueFields: ['number'],
  rules: [],
  checks: [],
  live: tollFreeLive,
  traffic: { calls: 'app_id', messages: 'campaign_id' },
  registry: {
    vetted: true,
    unregistered: 'UNVERIFIED',
    callback: {
      types: ['toll_free_verification'],
      idField: 'toll_free_number',
      id: (value) => value.replace(/^\+/, ''),
      untyped: false,
    },
  },
  scope: { code: 'tf', preset: 'messaging' },
  snapshot: {
    collection: 'toll_free_numbers',
    path: '/TollFree/',
    itemsKey: 'objects',
    idField: 'number',
    seed: 'existing',
    fields: textFields(['number', 'app_id', 'campaign_id'], { verified: 'flag' }),
  },
} as const satisfies Kind;

const withTollFree = createKindCatalog([...catalog.kinds, tollFreeNumber]);

const uriId = '11111111-1111-4111-8111-111111111111';
const uriSpec = { name: 'a', uri: 'a.example.com', priority: 1, weight: 10 };
const trunkSpec = {
  name: 'main',
  trunk_direction: 'inbound',
  trunk_status: 'enabled',
  secure: false,
  primary_uri_uuid: uriId,
};
const campaignSpec = { campaign_alias: 'promo' };
const lines = ['18005550100', '18005550101', '18005550102'];

/** A trunk with three toll-free numbers on it, one of them under a campaign; the manifests keep only the URI. */
function planDeletingTrunkAndCampaign(kinds: typeof catalog): Plan {
  const ledger = ledgerWith([
    { kind: 'OriginationUri', name: 'a', id: uriId, spec: uriSpec },
    { kind: 'Trunk', name: 'main', id: 'TRMAIN', spec: trunkSpec },
    { kind: 'Campaign', name: 'promo', id: 'CAAAAAA', spec: campaignSpec },
  ]);
  const liveModel = new Map<string, LiveObject[]>([
    ['OriginationUri', [live(uriId, uriSpec)]],
    ['Trunk', [live('TRMAIN', trunkSpec, { facts: { numbers: 3 } })]],
    ['Campaign', [live('CAAAAAA', campaignSpec)]],
    [
      'TollFreeNumber',
      lines.map((number, index) =>
        live(number, { number, app_id: 'TRMAIN', ...(index === 0 ? { campaign_id: 'CAAAAAA' } : {}) }),
      ),
    ],
  ]);
  return buildPlan(
    planInputs({
      kinds: plannerKinds(kinds),
      desired: [desired('OriginationUri', 'a', uriSpec)],
      live: liveModel,
      ledger,
    }),
  );
}

describe('a kind declared in its own file and one catalog line', () => {
  it('is counted by the blast radius: the calls its objects lose with their trunk, the messages with their campaign', () => {
    const plan = planDeletingTrunkAndCampaign(withTollFree);
    const blastOf = (address: string) => plan.changes.find((change) => change.address === address)?.blast;
    expect(blastOf('Trunk/main')).toEqual({ calls: 3, messages: 0, numbers: 3, trunks: [], applications: [] });
    expect(blastOf('Campaign/promo')).toEqual({ calls: 0, messages: 1, numbers: 1, trunks: [], applications: [] });
    expect(plan.summary.blast_radius).toEqual({ calls: 3, messages: 1, numbers: 4, trunks: 0, applications: 0 });
    expect(renderText(plan, { color: false })).toContain(
      '\nBlast radius: breaks calls to 3 numbers, breaks messages of 1 number.\n',
    );
    // The same account without the declaration in the catalog: its objects carry nothing the plan knows of.
    expect(planDeletingTrunkAndCampaign(catalog).summary.blast_radius).toEqual({
      calls: 0,
      messages: 0,
      numbers: 0,
      trunks: 0,
      applications: 0,
    });
  });

  it('is read by a run that reads anything, as the phone numbers are: its objects are what the blast radius counts', () => {
    // A SIP credential: nothing that refers to it leads to the numbers, yet they are read.
    const needs = neededKinds({
      kinds: plannerKinds(withTollFree),
      desired: [desired('SipCredential', 'pbx', { username: 'pbx' })],
      ledger: ledgerWith([]),
    });
    expect([...needs.required.keys()]).toEqual(['SipCredential']);
    expect([...needs.helpful].sort()).toEqual(['ApplicationSipAuth', 'PhoneNumber', 'SipIpAcl', 'TollFreeNumber']);
  });

  it('has its registry status reported by serve, its re-registration held for a person, and its callbacks read', () => {
    const line = live('18005550100', { number: '18005550100' }, { registry: { registration_status: 'pending' } });
    const ledger = ledgerWith([
      { kind: 'TollFreeNumber', name: 'hotline', id: '18005550100', spec: { number: '18005550100' } },
    ]);
    const plan = buildPlan(
      planInputs({
        kinds: plannerKinds(withTollFree),
        desired: [desired('TollFreeNumber', 'hotline', { number: '18005550100' })],
        live: new Map([['TollFreeNumber', [line]]]),
        ledger,
      }),
    );
    expect(registryEntries(plan, withTollFree)).toEqual([
      { address: 'TollFreeNumber/hotline', kind: 'TollFreeNumber', id: '18005550100', status: 'PENDING' },
    ]);
    expect(registryEntries(plan)).toEqual([]);

    const recreated = change({ address: 'TollFreeNumber/hotline', action: 'create', drifted: true });
    const held = planOf([recreated]);
    expect(reasonsToHold(held, [], withTollFree)).toEqual([
      'TollFreeNumber/hotline was deleted or deactivated outside telform: registering it again is a new vetting submission; run telform apply to make it',
    ]);
    expect(reasonsToHold(planOf([recreated]), [])).toEqual([]);

    const callback = new URLSearchParams({
      type: 'toll_free_verification',
      toll_free_number: '+18005550100',
      status: 'VERIFIED',
    });
    expect(callbackTarget(callback, withTollFree)).toEqual({
      kind: 'TollFreeNumber',
      id: '18005550100',
      status: 'VERIFIED',
    });
    expect(callbackTarget(callback)).toBeUndefined();
    // Callbacks of the kinds already there read as before.
    expect(callbackTarget(new URLSearchParams({ brand_id: 'B1', campaign_id: 'C1' }), withTollFree)?.kind).toBe(
      'Campaign',
    );
  });

  it('is named by scopes: by its name, in the preset it declares, and in a marker by its code', () => {
    const scopes = scopeVocabulary(withTollFree.kinds);
    const messaging = parseScope(['messaging'], scopes);
    expect(messaging).toEqual({ kinds: ['Brand', 'Campaign', 'PhoneNumber', 'Profile', 'TollFreeNumber'] });
    expect(describeScope(messaging, scopes)).toBe('messaging (Brand, Campaign, PhoneNumber, Profile, TollFreeNumber)');
    expect(scopeHolds(parseScope(['TollFreeNumber', 'prefix=1800'], scopes), 'TollFreeNumber', '18005550100')).toBe(
      true,
    );
    expect(scopeSuffix(parseScope(['TollFreeNumber'], scopes), scopes)).toBe(' kinds=tf');
    expect(scopeFromCodes(['tf', 'tr'], undefined, scopes)).toEqual({ kinds: ['TollFreeNumber', 'Trunk'] });
    // Without the catalog line, no scope can name it.
    expect(() => parseScope(['TollFreeNumber'])).toThrow('--scope TollFreeNumber: not a preset or a kind');
  });

  it('is read into a snapshot of the account, cut to the fields it declares', async () => {
    // The emulator's route for the kind, which the emulator has not: its list, as the API would answer it.
    const tollFreeList: Route = {
      method: 'GET',
      path: '/TollFree/',
      handle: () =>
        json(200, {
          meta: { limit: 20, offset: 0, total_count: 2, previous: null, next: null },
          objects: [
            { number: '18005550100', app_id: 'TRMAIN', verified: 'true', monthly_rental_rate: '2.00' },
            { number: '18005550101', campaign_id: 'CAAAAAA', verified: false },
          ],
        }),
    };
    const emulator = await startEmulator({}, { routes: [...accountRoutes, tollFreeList] });
    try {
      const reading = await readAccountRecords(clientFor(emulator), withTollFree);
      const header = { takenAt: '2026-01-01T00:00:00.000Z', endpoint: 'local', account: 'MA' };
      const document = snapshotDocument(reading, header, withTollFree);
      expect((document.existing as Record<string, unknown>)['toll_free_numbers']).toEqual([
        { number: '18005550100', app_id: 'TRMAIN', verified: true },
        { number: '18005550101', campaign_id: 'CAAAAAA', verified: false },
      ]);
      // The kinds already there are read as before; without the catalog line the collection is not read.
      expect(document.numbers).toEqual(snapshotDocument(reading, header).numbers);
      expect(Object.keys((await readAccountRecords(clientFor(emulator))).records)).not.toContain('toll_free_numbers');
    } finally {
      await emulator.close();
    }
  });

  it('may have its verification approved or declined by the registry in a test, named as its callbacks name it', () => {
    expect(decidedKinds(withTollFree.kinds)).toEqual(['Brand', 'Campaign', 'TollFreeNumber']);
    expect(decisionTarget(withTollFree.kinds, 'TollFreeNumber/hotline', '18005550100')).toEqual({
      toll_free_number: '18005550100',
    });
    expect(decisionTarget(withTollFree.kinds, 'Campaign/promo', 'CAAAAAA')).toEqual({ campaign_id: 'CAAAAAA' });
    // Without the catalog line a test cannot name it.
    expect(decidedKinds(catalog.kinds)).toEqual(['Brand', 'Campaign']);
    expect(decisionTarget(catalog.kinds, 'TollFreeNumber/hotline', '18005550100')).toBeUndefined();
  });

  it('is refused at start-up when its traffic names a field that is no reference, or authenticates by what admits nothing', () => {
    expect(() => createKindCatalog([...catalog.kinds, { ...tollFreeNumber, traffic: { calls: 'number' } }])).toThrow(
      'kind TollFreeNumber: traffic calls field number is not one of its references',
    );
    expect(() =>
      createKindCatalog([
        ...catalog.kinds,
        {
          ...tollFreeNumber,
          traffic: { authenticates: { by: ['app_id'], counted: { in: 'trunks' }, removalBreaks: false } },
        },
      ]),
    ).toThrow('kind TollFreeNumber: app_id authenticates by Trunk, which declares no traffic.admits');
    expect(() =>
      createKindCatalog([...catalog.kinds, { ...tollFreeNumber, scope: { code: 'tr', preset: 'messaging' } }]),
    ).toThrow("kind TollFreeNumber: scope code tr is Trunk's already");
    expect(() =>
      createKindCatalog([
        ...catalog.kinds,
        { ...tollFreeNumber, snapshot: { ...tollFreeNumber.snapshot, collection: 'numbers' } },
      ]),
    ).toThrow("kind TollFreeNumber: snapshot collection numbers is PhoneNumber's already");
  });
});
