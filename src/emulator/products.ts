import { ApiError } from './http.js';
import type { Product } from './options.js';
import { segmentsOf } from './router.js';

/**
 * Products an account may lack. Production answers 403 to the lists (and every other request) of a
 * product the account does not have; the trunking overview names the refusal "SIP trunking not enabled".
 * The 10DLC text is the emulator's own, in the same form. SipAuth, applications and numbers are the
 * core voice API every account has.
 */
const refusals: Record<Product, string> = {
  'sip-trunking': 'SIP trunking not enabled',
  '10dlc': '10DLC not enabled',
};

/** The product a path below the account belongs to, or null for the core API. */
export function productOf(path: string): Product | null {
  const [first] = segmentsOf(path);
  if (first === 'Zentrunk') return 'sip-trunking';
  if (first === '10dlc' || first === 'Profile') return '10dlc';
  return null;
}

/** Throws the 403 of a product the account lacks; checked after auth and before routing, so it holds for unknown paths too. */
export function checkProduct(products: ReadonlySet<Product>, path: string): void {
  const product = productOf(path);
  if (product !== null && !products.has(product)) throw new ApiError(403, refusals[product]);
}
