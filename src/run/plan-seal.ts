import { createHash, createHmac } from 'node:crypto';
import { stableJson } from '../util/stable-json.js';
import type { Plan, PlanSeal } from '../engine/plan-types.js';

/**
 * The integrity seal of a saved plan (`plan -o`): an HMAC-SHA256 over every field of the plan
 * except the seal itself (in a canonical form: sorted keys, no whitespace, so reformatting the file
 * is not an edit), keyed from the account's auth token. `apply plan.json` refuses a plan whose
 * seal does not match, before it reads a secret or the account.
 *
 * Keyed, not a bare digest: whoever can write the file could recompute a digest, so it would only
 * catch accidents. A pull request from a fork runs without the token; if its run could hand the
 * merge job a plan (an artifact made by a workflow the fork edited), a digest would pass and the
 * seal does not. The key is derived for this use only (not the token, not the ledger's key).
 * It authenticates "made by someone holding this account's token", nothing finer.
 */
export class PlanSealer {
  readonly keyId: string;
  readonly #key: Buffer;

  constructor(authToken: string) {
    this.#key = createHmac('sha256', authToken).update('telform saved plan v1').digest();
    this.keyId = createHash('sha256').update(this.#key).digest('hex').slice(0, 16);
  }

  /** The plan with its seal (any seal it had is replaced). */
  seal(plan: Plan): Plan {
    const { seal: _previous, ...content } = plan;
    void _previous;
    return { ...content, seal: { algorithm: 'hmac-sha256', key_id: this.keyId, value: this.#mac(content) } };
  }

  /**
   * `ok`; `missing` (no seal: not written by `plan -o`); `other_key` (sealed with another token:
   * another account, or the token was rotated since); `edited` (any field changed since).
   */
  check(plan: Plan): 'ok' | 'missing' | 'other_key' | 'edited' {
    const seal: PlanSeal | undefined = plan.seal;
    if (!seal || typeof seal !== 'object' || typeof seal.value !== 'string') return 'missing';
    if (seal.algorithm !== 'hmac-sha256' || seal.key_id !== this.keyId) return 'other_key';
    const { seal: _seal, ...content } = plan;
    void _seal;
    return this.#mac(content) === seal.value ? 'ok' : 'edited';
  }

  #mac(content: Omit<Plan, 'seal'>): string {
    // Through JSON first, so the seal covers exactly what the file holds (no undefined fields).
    return createHmac('sha256', this.#key)
      .update(stableJson(JSON.parse(JSON.stringify(content))))
      .digest('hex');
  }
}
