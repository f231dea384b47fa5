/** Buyers, their sign-in links and emailed verification challenges, and the agents they created or brought. */
import { defineEntity, p } from '@mikro-orm/core';

export const Buyer = defineEntity({
  name: 'Buyer',
  tableName: 'buyers',
  properties: {
    id: p.string().primary(),
    /** Lower-cased; one buyer per address. */
    email: p.string().unique(),
    /** The buyer's own language choice, when one was made. */
    lang: p.string().nullable(),
    createdAt: p.datetime(),
  },
});
export type BuyerRow = InstanceType<typeof Buyer.class>;

/** A single-use magic link; only the SHA-256 of its token is stored. */
export const SignInLink = defineEntity({
  name: 'SignInLink',
  tableName: 'sign_in_links',
  properties: {
    id: p.string().primary(),
    tokenHash: p.string().unique(),
    email: p.string(),
    merchantId: p.string().nullable(),
    lang: p.string().nullable(),
    expiresAt: p.datetime(),
    usedAt: p.datetime().nullable(),
    createdAt: p.datetime(),
  },
});
export type SignInLinkRow = InstanceType<typeof SignInLink.class>;

/** A 6-digit code sent by email, bound to one buyer and one purpose; stored as an HMAC. */
export const VerificationChallenge = defineEntity({
  name: 'VerificationChallenge',
  tableName: 'verification_challenges',
  properties: {
    id: p.string().primary(),
    buyerId: p.string(),
    purpose: p.string(),
    codeHash: p.string(),
    attempts: p.integer().default(0),
    maxAttempts: p.integer(),
    expiresAt: p.datetime(),
    usedAt: p.datetime().nullable(),
    createdAt: p.datetime(),
    /** SHA-256 of the details the code was e-mailed for (purpose `authorize_agent`); the operation must match them. */
    subjectDigest: p.string().nullable(),
  },
});
export type VerificationChallengeRow = InstanceType<typeof VerificationChallenge.class>;

/** An agent acting for a buyer: `issued` (a `tag_…` token, stored hashed) or `key` (its own public JWK). */
export const Agent = defineEntity({
  name: 'Agent',
  tableName: 'agents',
  properties: {
    id: p.string().primary(),
    buyerId: p.string(),
    name: p.string(),
    credential: p.string(),
    tokenHash: p.string().nullable(),
    tokenPrefix: p.string().nullable(),
    publicJwk: p.json<Record<string, string>>().nullable(),
    /** `active`, `paused` or `deleted`; only active agents authenticate. */
    status: p.string(),
    createdAt: p.datetime(),
    updatedAt: p.datetime(),
  },
});
export type AgentRow = InstanceType<typeof Agent.class>;
