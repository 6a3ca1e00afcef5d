// `telform show plan.json` as an operation: the saved plan read, and its seal checked with the token
// `apply` would verify it with — the environment's credentials, or the embedded emulator's for a
// plan made against it (given by the caller: only the CLI knows the emulator). Sends no request.
import { resolveConnection } from '../api/connection.js';
import type { Plan } from '../engine/plan-types.js';
import type { Environment, GlobalOptions } from './context.js';
import { describeSeal, readSavedPlan } from './saved-plan.js';

interface ShownPlan {
  plan: Plan;
  seal: { verified: boolean; message: string };
}

export async function showSavedPlan(
  file: string,
  globals: GlobalOptions,
  env: Environment,
  localToken: () => Promise<string>,
): Promise<ShownPlan> {
  const plan = await readSavedPlan(file);
  return { plan, seal: describeSeal(plan, await sealToken(plan, globals, env, localToken), file) };
}

/** Undefined when there is no token to verify with (show needs no credentials). */
async function sealToken(
  plan: Plan,
  globals: GlobalOptions,
  env: Environment,
  localToken: () => Promise<string>,
): Promise<string | undefined> {
  let target: ReturnType<typeof resolveConnection>;
  try {
    target = resolveConnection({ endpointFlag: globals.endpoint, env });
  } catch {
    return undefined;
  }
  if (target.kind === 'remote') return target.credentials.authToken;
  if (plan.endpoint !== 'local') return undefined;
  return localToken();
}
