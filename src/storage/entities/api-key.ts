/** Merchant API keys: opaque bearer tokens stored only as a SHA-256 hash, with scopes and last use. */
import { defineEntity, p } from '@mikro-orm/core';

export const ApiKey = defineEntity({
  name: 'ApiKey',
  tableName: 'api_keys',
  properties: {
    id: p.string().primary(),
    organizationId: p.string(),
    name: p.string(),
    tokenHash: p.string().unique(),
    /** The first characters of the token, shown in lists so people can tell keys apart. */
    tokenPrefix: p.string(),
    scopes: p.array(),
    createdByUserId: p.string().nullable(),
    createdAt: p.datetime(),
    lastUsedAt: p.datetime().nullable(),
    revokedAt: p.datetime().nullable(),
  },
});
export type ApiKeyRow = InstanceType<typeof ApiKey.class>;
