import * as z from 'zod';

/**
 * zod building blocks shared by the kinds' `spec` schemas. Every format check carries its own
 * message (the validator adds the offending value, except for secrets), written as the end of
 * "field: …".
 */

/**
 * `metadata.name`: a lower-case DNS label (RFC 1123), 1–63 characters, as Kubernetes names are.
 * It is the manifest identity used by refs and addresses, so it must survive in file names,
 * URLs and shell arguments unquoted.
 */
export const metadataNamePattern = /^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/;
export const metadataNameRule =
  'must be 1 to 63 lower-case letters, digits or "-", starting and ending with a letter or digit';

export const metadataName = z
  .string()
  .regex(metadataNamePattern, { error: metadataNameRule })
  .describe(
    'Manifest identity, unique per kind: 1–63 lower-case letters, digits and "-", starting and ending with a letter or digit.',
  );

const octet = '(?:25[0-5]|2[0-4][0-9]|1[0-9][0-9]|[1-9]?[0-9])';
/** Dotted-quad IPv4 without leading zeros (`010.0.0.1` could be read as octal). */
export const ipv4Pattern = new RegExp(`^${octet}(?:\\.${octet}){3}$`);
export const ipv4OrCidrPattern = new RegExp(`^${octet}(?:\\.${octet}){3}(?:/(?:3[0-2]|[12]?[0-9]))?$`);

export const ipv4 = z.string().regex(ipv4Pattern, { error: 'must be an IPv4 address such as 203.0.113.10' });

export const ipv4OrCidr = z.string().regex(ipv4OrCidrPattern, {
  error: 'must be an IPv4 address such as 203.0.113.10 or a CIDR range such as 203.0.113.0/24 (prefix 0–32)',
});

/** The API's uuids (SipAuth, Zentrunk, profiles) are RFC 4122 text; the version is not checked. */
export const uuidPattern = /^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$/;
export const uuid = z
  .string()
  .regex(uuidPattern, { error: 'must be a uuid such as 5eed0000-0000-4000-8000-000000000001' });

/** An absolute http(s) URL with a host, for callbacks and public links. */
export const httpUrl = z
  .string()
  .max(2048)
  .regex(/^https?:\/\/[^\s/?#:]+(?::[0-9]{1,5})?(?:[/?#]\S*)?$/, {
    error: 'must be a fully qualified http:// or https:// URL',
  });

export const callbackMethod = z
  .enum(['GET', 'POST'])
  .default('POST')
  .describe('HTTP method of the status callback to `url`.');

/**
 * The longest text telform sends in a field whose limit the API does not document (names, aliases,
 * usernames, keywords): 255 characters, the common column size. Validation stops a longer value
 * before any request, instead of the API refusing it at apply time (a body too large, or a 400).
 */
export const maxTextLength = 255;

/** A friendly name the API stores as given, at most `max` characters. */
export function friendlyName(description: string, max = maxTextLength): z.ZodString {
  return z.string().min(1, { error: 'must not be empty' }).max(max).describe(description);
}

/**
 * The friendly name of a trunking object, which the API makes optional: `""` says "no name" (an
 * imported object that has none), where leaving the field out means metadata.name.
 */
export function optionalFriendlyName(description: string): z.ZodString {
  return z.string().max(maxTextLength).describe(`${description} "" for none.`);
}

/** `{ ref: <metadata.name> }` of another manifest resource. */
export const refObject = z
  .strictObject({ ref: metadataName.describe('`metadata.name` of the resource referred to.') })
  .describe('A resource of these manifests, by its metadata.name.');

/**
 * A field holding another resource's identifier (docs/manifests.md): a literal id of a resource
 * telform does not manage, or `{ ref: name }`. The target kind is declared in the kind's
 * `references`; the validator checks it.
 */
export function reference(
  literal: z.ZodString,
  target: string,
  what: string,
): z.ZodUnion<readonly [z.ZodString, typeof refObject]> {
  return z
    .union([literal, refObject], { error: `must be ${what} or { ref: <metadata.name of a ${target}> }` })
    .describe(`The ${target}: { ref: <metadata.name> } of one in these manifests, or ${what} of one not managed here.`);
}

const environmentVariable = z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/, {
  error: 'must be an environment variable name (letters, digits and "_", not starting with a digit)',
});

/**
 * A write-only value (docs/manifests.md): `{ fromEnv: VAR }`, `{ fromFile: path }` relative to
 * the manifest, or a literal string (accepted with a warning).
 */
export const secret = z
  .union(
    [
      z.string().min(1, { error: 'must not be empty' }),
      z.strictObject({ fromEnv: environmentVariable.describe('Environment variable holding the secret.') }),
      z.strictObject({
        fromFile: z
          .string()
          .min(1, { error: 'must not be empty' })
          .describe('File holding the secret, relative to this manifest.'),
      }),
    ],
    { error: 'must be { fromEnv: VARIABLE }, { fromFile: path } or a literal string' },
  )
  .describe(
    'Secret (write-only): { fromEnv: VAR }, { fromFile: path relative to this manifest }, or a literal (discouraged).',
  );
