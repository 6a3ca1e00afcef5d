import { describe, expect, it } from 'vitest';
import { renderOutcome } from '../../src/render/apply.js';
import { change } from '../support/plan.js';

describe('apply progress lines', () => {
  it('tells the two steps of a create-before-delete replace apart instead of saying "replaced" twice', () => {
    const replace = change({
      address: 'Campaign/promo',
      action: 'replace',
      id: 'COLD001',
      replace_strategy: 'create_before_delete',
    });
    expect(renderOutcome(replace, { status: 'done', id: 'CNEW002' })).toBe(
      'created  Campaign/promo (id CNEW002), replacing id COLD001',
    );
    expect(renderOutcome(replace, { status: 'done' }, true)).toBe(
      'deleted  Campaign/promo (the replaced one, id COLD001)',
    );
    const deleteFirst = change({
      address: 'Brand/acme',
      action: 'replace',
      id: 'BOLD001',
      replace_strategy: 'delete_before_create',
    });
    expect(renderOutcome(deleteFirst, { status: 'done', id: 'BNEW002' })).toBe('replaced Brand/acme (id BNEW002)');
  });
});
