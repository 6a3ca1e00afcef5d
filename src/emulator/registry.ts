import type {
  BrandStatus,
  CampaignStatus,
  DeclinedReason,
  NumberLinkFailure,
  NumberLinkStatus,
  Registration,
  RegistrationStep,
} from './state.js';

/**
 * The registry simulator's rules (documented in docs/emulator.md): on submission, a brand or campaign is
 * decided from its input alone, so a test can ask for any outcome, and the decision is written
 * down as timed steps. The status at any moment is read from those steps and the clock, never
 * from timers, so a restarted emulator shows the right status.
 *
 * - A brand is `PROCESSING`, then after the registry delay `FAILED` (with `declined_reasons`) when
 *   its `brand_alias` contains `decline` (any case), else `COMPLETED`.
 * - A campaign is `PROCESSING`, then after the registry delay `FAILED` (with `error_code` and
 *   `error_reason`) when its `campaign_alias` or `description` contains `decline` (any case);
 *   otherwise `ACTIVE`, and when either contains `expire` (any case), `EXPIRED` after a further
 *   registry delay.
 * - A number linked to a campaign is `PROCESSING`, then after the registry delay `FAILED` (with a
 *   code and reason) when its last four digits are `0000`, else `COMPLETED`.
 */

/** What the registry decided for a brand. */
export interface BrandDecision {
  status: Exclude<BrandStatus, 'PROCESSING'>;
  declinedReasons: DeclinedReason[];
}

/** What the registry decided for a campaign. */
export interface CampaignDecision {
  status: 'ACTIVE' | 'FAILED';
  /** Whether an `ACTIVE` campaign later becomes `EXPIRED`. */
  expires: boolean;
  decline: { error_code: string; error_reason: string } | null;
}

const declineMarker = 'decline';
const expireMarker = 'expire';

function mentions(text: string | undefined, marker: string): boolean {
  return (text ?? '').toLowerCase().includes(marker);
}

export function decideBrand(input: { brand_alias: string }): BrandDecision {
  if (mentions(input.brand_alias, declineMarker)) {
    return {
      status: 'FAILED',
      declinedReasons: [
        {
          code: 'TCR_IDENTITY_MISMATCH',
          message:
            'The registry could not verify the company identity (emulator rule: the brand_alias contains "decline").',
        },
      ],
    };
  }
  return { status: 'COMPLETED', declinedReasons: [] };
}

export function decideCampaign(input: { campaign_alias?: string; description?: string }): CampaignDecision {
  if (mentions(input.campaign_alias, declineMarker) || mentions(input.description, declineMarker)) {
    return {
      status: 'FAILED',
      expires: false,
      decline: {
        error_code: 'CAMPAIGN_VETTING_DECLINED',
        error_reason:
          'The carriers declined the campaign in vetting (emulator rule: the campaign_alias or description contains "decline").',
      },
    };
  }
  const expires = mentions(input.campaign_alias, expireMarker) || mentions(input.description, expireMarker);
  return { status: 'ACTIVE', expires, decline: null };
}

/** The subscriber line the carriers refuse in the emulator: a number ending in it fails to link. */
export const refusedLineSuffix = '0000';

export function decideNumberLink(number: string): NumberLinkFailure | null {
  if (!number.endsWith(refusedLineSuffix)) return null;
  return {
    code: 'NUMBER_LINK_REJECTED',
    reason: `The carriers refused to register the number with the campaign (emulator rule: the number ends in ${refusedLineSuffix}).`,
  };
}

/** Steps of a number link submitted at `submittedAt`: `PROCESSING`, then `COMPLETED` or `FAILED` after `delayMs`. */
export function numberLinkRegistration(
  failure: NumberLinkFailure | null,
  submittedAt: Date,
  delayMs: number,
): Registration<NumberLinkStatus> {
  return {
    steps: [step(submittedAt, 0, 'PROCESSING'), step(submittedAt, delayMs, failure ? 'FAILED' : 'COMPLETED')],
    notified: 0,
  };
}

/** Steps of a brand registration submitted at `submittedAt`, deciding after `delayMs`. */
export function brandRegistration(
  decision: BrandDecision,
  submittedAt: Date,
  delayMs: number,
): Registration<BrandStatus> {
  return {
    steps: [step(submittedAt, 0, 'PROCESSING'), step(submittedAt, delayMs, decision.status)],
    notified: 0,
  };
}

/** Steps of a campaign registration; an expiring campaign gets `EXPIRED` one more delay later. */
export function campaignRegistration(
  decision: CampaignDecision,
  submittedAt: Date,
  delayMs: number,
): Registration<CampaignStatus> {
  const steps: RegistrationStep<CampaignStatus>[] = [
    step(submittedAt, 0, 'PROCESSING'),
    step(submittedAt, delayMs, decision.status),
  ];
  if (decision.status === 'ACTIVE' && decision.expires) steps.push(step(submittedAt, 2 * delayMs, 'EXPIRED'));
  return { steps, notified: 0 };
}

function step<S extends string>(start: Date, offsetMs: number, status: S): RegistrationStep<S> {
  return { at: new Date(start.getTime() + offsetMs).toISOString(), status };
}

/** How many steps have been reached at `now` (at least 1: the submission itself). */
export function stepsReached<S extends string>(registration: Registration<S>, now: Date): number {
  let reached = 0;
  for (const { at } of registration.steps) {
    if (Date.parse(at) <= now.getTime()) reached += 1;
    else break;
  }
  return Math.max(reached, 1);
}

/** The status of a registration at `now`. */
export function statusAt<S extends string>(registration: Registration<S>, now: Date): S {
  const reached = stepsReached(registration, now);
  return (registration.steps[reached - 1] as RegistrationStep<S>).status;
}
