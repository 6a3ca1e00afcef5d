// The 10DLC lint's rules: one table a person can extend. Each rule checks a campaign's content offline
// against carrier and registry guidance before a registration or a (billed) update is submitted.
//
// To add a rule: append an entry with a new kebab-case `id`, a `severity` (`error` when the registry or
// the carriers decline such content, `warning` when they may), the `source` it follows, and a `check`
// that returns one finding per field it is about. Add a good and a bad manifest to
// test/manifest/campaign-lint/ (the bad one named after the rule); the corpus test finds them.

/** What a rule sees: the campaign's spec and the names its brand is known by. */
export interface CampaignView {
  spec: Readonly<Record<string, unknown>>;
  /** The brand's alias and its profile's company and alias; empty when the brand is not in the manifests. */
  brandNames: readonly string[];
}

export interface LintHit {
  /** Top-level spec field, e.g. `sample1`. */
  field: string;
  message: string;
}

export interface CampaignLintRule {
  id: string;
  severity: 'error' | 'warning';
  /** The public guidance the rule follows. */
  source: string;
  /** What the rule asks, in one line (docs and `--help`). */
  summary: string;
  check(campaign: CampaignView): LintHit[];
}

const ctia = 'CTIA Messaging Principles and Best Practices';
const tcr = 'The Campaign Registry: campaign vetting guidance';
const carriers = 'Carrier 10DLC code of conduct (T-Mobile, AT&T)';

const sampleFields = ['sample1', 'sample2', 'sample3', 'sample4', 'sample5'];
const link =
  /\b(?:https?:\/\/|www\.)\S+|\b[a-z0-9-]+(?:\.[a-z0-9-]+)*\.(?:com|net|org|io|co|us|info|biz|app|example)(?:\/\S*)?/i;
const phone = /(?:\+?1[\s.-]?)?\(?\b[2-9]\d{2}\)?[\s.-]?\d{3}[\s.-]?\d{4}\b/;
const shortener = /\b(?:bit\.ly|tinyurl\.com|goo\.gl|ow\.ly|t\.co|is\.gd|buff\.ly|rebrand\.ly|cutt\.ly)\b/i;
const optOut = /\b(?:stop|unsubscribe|opt[ -]?out|cancel|end|quit)\b/i;
// Words of a consent mechanism: an opt-in, a box ticked, a keyword texted in, a number confirmed with a code.
const consent =
  /\b(?:opt[ -]?in|opts in|opted in|consent|check ?box|tick|ticks|sign[ -]?up|signs up|subscribe|agree|text(?:s|ing)? [A-Z0-9]+ to|repl(?:y|ies|ying)|web ?form|form|keyword|confirm(?:s|ed|ing)?|verif(?:y|ies|ied|ication)|enrol(?:l|ls|led|ment)?|request(?:s|ed)?)\b/i;
const confirmsOptOut =
  /\b(?:unsubscribed|no (?:more|further|longer)|will not receive|won't receive|opted out|stopped)\b/i;
const contact = new RegExp(`${link.source}|${phone.source}|\\b\\S+@\\S+\\.\\w+\\b`, 'i');
const prohibited = /\b(?:cannabis|marijuana|cbd|thc|kratom|vape|vaping)\b/i;
const ageRestricted = /\b(?:alcohol|beer|wine|liquor|spirits|tobacco|cigar(?:ette)?s?|firearms?|gun)\b/i;
const lending = /\b(?:loan|loans|lending|payday|credit line|cash advance)\b/i;

/** A link of any form, a shortened one included. */
function hasLink(value: string): boolean {
  return link.test(value) || shortener.test(value);
}

function samples(spec: Readonly<Record<string, unknown>>): Array<{ field: string; text: string }> {
  return sampleFields.flatMap((field) =>
    typeof spec[field] === 'string' ? [{ field, text: spec[field] as string }] : [],
  );
}

function text(spec: Readonly<Record<string, unknown>>, field: string): string | undefined {
  return typeof spec[field] === 'string' ? (spec[field] as string) : undefined;
}

/**
 * Whether a text names the brand: one of its names whole, or the first word of one (at least three
 * letters: "Acme" for "Acme Retail Inc."), as a word, in any case.
 */
export function namesBrand(value: string, names: readonly string[]): boolean {
  const tokens = new Set<string>();
  for (const name of names) {
    tokens.add(name.trim());
    const first = name.trim().split(/\s+/)[0] ?? '';
    if (first.length >= 3) tokens.add(first);
  }
  // Lower-cased text searched with indexOf: a regex built per sample and token cost more than
  // the rest of the lint (tens of ms at thousands of campaigns).
  const text = value.toLowerCase();
  for (const token of tokens) if (token !== '' && containsWord(text, token.toLowerCase())) return true;
  return false;
}

const letterOrDigit = /[\p{L}\p{N}]/u;

/** Whether `word` occurs in `text` with no letter or digit right before or after it. */
function containsWord(text: string, word: string): boolean {
  for (let at = text.indexOf(word); at !== -1; at = text.indexOf(word, at + 1)) {
    if (!wordCharAt(text, at - 1, true) && !wordCharAt(text, at + word.length, false)) return true;
  }
  return false;
}

/** Whether the character ending before (or starting at) `index` is a letter or digit, surrogate pairs read whole. */
function wordCharAt(text: string, index: number, before: boolean): boolean {
  if (index < 0 || index >= text.length) return false;
  const code = text.charCodeAt(index);
  // An ASCII character decides at once; others go through the Unicode classes.
  if (code < 128) return (code >= 48 && code <= 57) || (code >= 97 && code <= 122) || (code >= 65 && code <= 90);
  const start = before && code >= 0xdc00 && code <= 0xdfff && index > 0 ? index - 1 : index;
  const point = text.codePointAt(start);
  return point !== undefined && letterOrDigit.test(String.fromCodePoint(point));
}

function keywords(spec: Readonly<Record<string, unknown>>, field: string): string[] | undefined {
  const value = text(spec, field);
  return value === undefined ? undefined : value.split(',').map((keyword) => keyword.trim().toUpperCase());
}

function marketing(spec: Readonly<Record<string, unknown>>): boolean {
  return (
    spec['usecase'] === 'MARKETING' ||
    (Array.isArray(spec['sub_usecases']) && spec['sub_usecases'].includes('MARKETING'))
  );
}

function brandMessage(field: string, what: string, names: readonly string[]): LintHit {
  return {
    field,
    message: `${what} does not name the brand (${names.map((name) => JSON.stringify(name)).join(' or ')}); recipients must be able to tell who is writing`,
  };
}

export const campaignLintRules: readonly CampaignLintRule[] = [
  {
    id: 'sample-names-brand',
    severity: 'error',
    source: `${tcr}; ${ctia} (message sender identification)`,
    summary: 'every sample message names the brand',
    check: ({ spec, brandNames }) =>
      brandNames.length === 0
        ? []
        : samples(spec)
            .filter(({ text: value }) => !namesBrand(value, brandNames))
            .map(({ field }) => brandMessage(field, 'the sample', brandNames)),
  },
  {
    id: 'sample-optout-instruction',
    severity: 'error',
    source: `${ctia} (opt-out disclosure in marketing messages); ${tcr}`,
    summary: 'a marketing campaign shows how to opt out (e.g. "Reply STOP to opt out") in at least one sample',
    check: ({ spec }) =>
      marketing(spec) && !samples(spec).some(({ text: value }) => optOut.test(value))
        ? [
            {
              field: 'sample1',
              message:
                'no sample tells the recipient how to opt out (e.g. "Reply STOP to opt out"), which marketing messages must',
            },
          ]
        : [],
  },
  {
    id: 'message-flow-consent',
    severity: 'error',
    source: `${tcr} (call to action / message flow); ${ctia} (consent)`,
    summary: 'message_flow says how consent is collected (a web form, a check box, a keyword texted in, …)',
    check: ({ spec }) => {
      const flow = text(spec, 'message_flow');
      return flow !== undefined && !consent.test(flow)
        ? [
            {
              field: 'message_flow',
              message:
                'does not say how subscribers give consent (e.g. "customers tick an SMS box on the checkout form" or "text JOIN to 12345")',
            },
          ]
        : [];
    },
  },
  {
    id: 'embedded-link-undisclosed',
    severity: 'error',
    source: tcr,
    summary: 'embedded_link is true when a sample contains a link',
    check: ({ spec }) =>
      spec['embedded_link'] === true
        ? []
        : samples(spec)
            .filter(({ text: value }) => hasLink(value))
            .slice(0, 1)
            .map(({ field }) => ({ field: 'embedded_link', message: `is not true, but ${field} contains a link` })),
  },
  {
    id: 'embedded-link-unshown',
    severity: 'warning',
    source: tcr,
    summary: 'when embedded_link is true, a sample shows the kind of link sent',
    check: ({ spec }) =>
      spec['embedded_link'] === true &&
      samples(spec).length > 0 &&
      !samples(spec).some(({ text: value }) => hasLink(value))
        ? [{ field: 'embedded_link', message: 'is true, but no sample contains a link; vetters compare the two' }]
        : [],
  },
  {
    id: 'embedded-phone-undisclosed',
    severity: 'error',
    source: tcr,
    summary: 'embedded_phone is true when a sample contains a phone number',
    check: ({ spec }) =>
      spec['embedded_phone'] === true
        ? []
        : samples(spec)
            .filter(({ text: value }) => phone.test(value))
            .slice(0, 1)
            .map(({ field }) => ({
              field: 'embedded_phone',
              message: `is not true, but ${field} contains a phone number`,
            })),
  },
  {
    id: 'embedded-phone-unshown',
    severity: 'warning',
    source: tcr,
    summary: 'when embedded_phone is true, a sample shows the phone number sent',
    check: ({ spec }) =>
      spec['embedded_phone'] === true &&
      samples(spec).length > 0 &&
      !samples(spec).some(({ text: value }) => phone.test(value))
        ? [
            {
              field: 'embedded_phone',
              message: 'is true, but no sample contains a phone number; vetters compare the two',
            },
          ]
        : [],
  },
  {
    id: 'link-shortener',
    severity: 'error',
    source: carriers,
    summary: 'samples use no public link shortener (bit.ly, tinyurl.com, …), which carriers filter',
    check: ({ spec }) =>
      samples(spec)
        .filter(({ text: value }) => shortener.test(value))
        .map(({ field }) => ({
          field,
          message: "uses a public link shortener, which carriers filter; use a link on the brand's own domain",
        })),
  },
  {
    id: 'help-message-names-brand',
    severity: 'error',
    source: `${ctia} (HELP response)`,
    summary: 'help_message names the brand',
    check: ({ spec, brandNames }) => {
      const help = text(spec, 'help_message');
      return help !== undefined && brandNames.length > 0 && !namesBrand(help, brandNames)
        ? [brandMessage('help_message', 'the help reply', brandNames)]
        : [];
    },
  },
  {
    id: 'help-message-contact',
    severity: 'warning',
    source: `${ctia} (HELP response)`,
    summary: 'help_message gives a way to reach the brand (a phone number, an e-mail address or a web page)',
    check: ({ spec }) => {
      const help = text(spec, 'help_message');
      return help !== undefined && !contact.test(help)
        ? [{ field: 'help_message', message: 'gives no phone number, e-mail address or web page to reach the brand' }]
        : [];
    },
  },
  {
    id: 'optout-message-names-brand',
    severity: 'error',
    source: `${ctia} (opt-out confirmation)`,
    summary: 'optout_message names the brand',
    check: ({ spec, brandNames }) => {
      const reply = text(spec, 'optout_message');
      return reply !== undefined && brandNames.length > 0 && !namesBrand(reply, brandNames)
        ? [brandMessage('optout_message', 'the opt-out reply', brandNames)]
        : [];
    },
  },
  {
    id: 'optout-message-confirms',
    severity: 'warning',
    source: `${ctia} (opt-out confirmation)`,
    summary: 'optout_message confirms that no more messages will be sent',
    check: ({ spec }) => {
      const reply = text(spec, 'optout_message');
      return reply !== undefined && !confirmsOptOut.test(reply)
        ? [
            {
              field: 'optout_message',
              message:
                'does not confirm that no more messages will be sent (e.g. "you are unsubscribed and will receive no more messages")',
            },
          ]
        : [];
    },
  },
  {
    id: 'optout-keywords-stop',
    severity: 'error',
    source: ctia,
    summary: 'optout_keywords include STOP',
    check: ({ spec }) =>
      keywords(spec, 'optout_keywords')?.includes('STOP') === false
        ? [{ field: 'optout_keywords', message: 'do not include STOP, which every US carrier honours' }]
        : [],
  },
  {
    id: 'help-keywords-help',
    severity: 'error',
    source: ctia,
    summary: 'help_keywords include HELP',
    check: ({ spec }) =>
      keywords(spec, 'help_keywords')?.includes('HELP') === false
        ? [{ field: 'help_keywords', message: 'do not include HELP, which every US carrier honours' }]
        : [],
  },
  {
    id: 'prohibited-content',
    severity: 'error',
    source: carriers,
    summary: 'samples do not promote cannabis, CBD, kratom or vaping, which 10DLC does not carry',
    check: ({ spec }) =>
      samples(spec)
        .filter(({ text: value }) => prohibited.test(value))
        .map(({ field }) => ({
          field,
          message: 'mentions content that 10DLC does not carry (cannabis, CBD, kratom, vaping)',
        })),
  },
  {
    id: 'age-gated-content',
    severity: 'warning',
    source: carriers,
    summary: 'samples about alcohol, tobacco or firearms go with age_gated: true',
    check: ({ spec }) =>
      spec['age_gated'] === true
        ? []
        : samples(spec)
            .filter(({ text: value }) => ageRestricted.test(value))
            .slice(0, 1)
            .map(({ field }) => ({
              field: 'age_gated',
              message: `is not true, but ${field} mentions age-restricted content`,
            })),
  },
  {
    id: 'direct-lending-content',
    severity: 'warning',
    source: tcr,
    summary: 'samples about loans go with direct_lending: true',
    check: ({ spec }) =>
      spec['direct_lending'] === true
        ? []
        : samples(spec)
            .filter(({ text: value }) => lending.test(value))
            .slice(0, 1)
            .map(({ field }) => ({ field: 'direct_lending', message: `is not true, but ${field} mentions lending` })),
  },
  {
    id: 'samples-distinct',
    severity: 'warning',
    source: tcr,
    summary: 'sample messages differ from each other',
    check: ({ spec }) => {
      const seen = new Map<string, string>();
      const hits: LintHit[] = [];
      for (const { field, text: value } of samples(spec)) {
        const key = value.trim().toLowerCase();
        const first = seen.get(key);
        if (first)
          hits.push({ field, message: `repeats ${first}; each sample should show another message the campaign sends` });
        else seen.set(key, field);
      }
      return hits;
    },
  },
  {
    id: 'marketing-privacy-policy',
    severity: 'warning',
    source: tcr,
    summary: 'a marketing campaign links its privacy policy (privacy_policy_link)',
    check: ({ spec }) =>
      marketing(spec) && spec['privacy_policy_link'] === undefined
        ? [{ field: 'privacy_policy_link', message: 'is missing; vetters look for it on marketing campaigns' }]
        : [],
  },
];
