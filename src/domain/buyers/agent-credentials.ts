/**
 * Agent credentials: service-issued `tag_…` tokens (shown once, stored as SHA-256) and brought agents'
 * public keys (Ed25519 or P-256 JWK), which authenticate with a short-lived JWT they sign themselves.
 */
import { decodeJwt, importJWK, jwtVerify, type JWK } from 'jose';
import { ToolError } from '../../kernel/errors.ts';
import type { Principal } from '../../kernel/principal.ts';
import type { Database } from '../../storage/database.ts';
import { randomToken } from '../../storage/ids.ts';

/** The longest lifetime a brought agent's JWT may claim: `exp` at most this many seconds ahead. */
export const AGENT_JWT_MAX_TTL_SECONDS = 300;
/** Tolerated clock difference between the agent and this server. */
const CLOCK_SKEW_SECONDS = 30;

/** The public JWKs agents may bring, with the one JWS algorithm each is verified with. */
export type AgentJwk = { kty: 'OKP'; crv: 'Ed25519'; x: string } | { kty: 'EC'; crv: 'P-256'; x: string; y: string };

function algorithmsFor(jwk: AgentJwk): string[] {
  return jwk.kty === 'OKP' ? ['EdDSA', 'Ed25519'] : ['ES256'];
}

/** Checks that a JWK is a usable public key (throws 400 `invalid_input` otherwise). */
export async function assertUsablePublicKey(jwk: AgentJwk): Promise<void> {
  try {
    await importJWK(jwk as JWK, algorithmsFor(jwk)[0]);
  } catch {
    throw new ToolError('invalid_input', 'The public key is not a valid Ed25519 or P-256 JWK.', {
      field: 'publicKeyJwk',
    });
  }
}

/** A new service-issued agent token (`tag_…`): returned once, only its hash is stored. */
export function newAgentToken(prefix: string): string {
  return `${prefix}${randomToken(24)}`;
}

const refused = () => new ToolError('unauthenticated', 'The agent credential is invalid, expired, paused or deleted.');

/**
 * Verifies a brought agent's JWT: signed by the agent's registered key, `iss` = `sub` = the agent id,
 * `aud` = this service's URL, and an `exp` at most five minutes ahead. Paused and deleted agents are refused.
 */
export async function verifyAgentJwt(db: Database, jwt: string, audience: string, now: Date): Promise<Principal> {
  const iss = jwtIssuer(jwt);
  const rows = await db.execute<{ id: string; buyer_id: string; public_jwk: AgentJwk }>(
    `select id, buyer_id, public_jwk from agents where id = ? and credential = 'key' and status = 'active'`,
    [iss],
  );
  const agent = rows[0];
  if (!agent) throw refused();
  const algorithms = algorithmsFor(agent.public_jwk);
  let exp: number | undefined;
  try {
    const key = await importJWK(agent.public_jwk as JWK, algorithms[0]);
    const { payload } = await jwtVerify(jwt, key, {
      issuer: agent.id,
      subject: agent.id,
      audience: [audience, `${audience}/`],
      algorithms,
      currentDate: now,
      clockTolerance: CLOCK_SKEW_SECONDS,
      requiredClaims: ['exp'],
    });
    exp = payload.exp;
  } catch {
    throw refused();
  }
  const nowSeconds = Math.floor(now.getTime() / 1000);
  if (exp === undefined || exp > nowSeconds + AGENT_JWT_MAX_TTL_SECONDS + CLOCK_SKEW_SECONDS) {
    throw new ToolError('unauthenticated', `Agent JWTs must expire within ${AGENT_JWT_MAX_TTL_SECONDS} seconds.`);
  }
  return { kind: 'agent', agentId: agent.id, buyerId: agent.buyer_id };
}

function jwtIssuer(jwt: string): string {
  try {
    const iss = decodeJwt(jwt).iss;
    if (typeof iss === 'string') return iss;
  } catch {
    /* refused below */
  }
  throw refused();
}
