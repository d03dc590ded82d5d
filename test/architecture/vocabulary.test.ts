import { describe, expectTypeOf, it } from 'vitest';
import type * as Http from '../../src/http/actors.js';
import type { KeyMode } from '../../src/modules/api-keys/index.js';
import type { MerchantStatus, UserRole } from '../../src/modules/merchants/index.js';

// http sits below the modules and spells the values its credential checks use; the modules own them.
// The type check (npm run typecheck) fails as soon as the two spellings differ.
describe('the vocabulary http checks is the modules’ own', () => {
  it('has the same key modes, merchant statuses and user roles', () => {
    expectTypeOf<Http.KeyMode>().toEqualTypeOf<KeyMode>();
    expectTypeOf<Http.MerchantStatus>().toEqualTypeOf<MerchantStatus>();
    expectTypeOf<Http.UserRole>().toEqualTypeOf<UserRole>();
  });
});
