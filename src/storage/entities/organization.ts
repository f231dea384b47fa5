/** Organizations own shops, API keys and console members; staff enable attested consent per organization. */
import { defineEntity, p } from '@mikro-orm/core';

export const Organization = defineEntity({
  name: 'Organization',
  tableName: 'organizations',
  properties: {
    id: p.string().primary(),
    name: p.string(),
    attestationEnabled: p.boolean().default(false),
    attestCeilingMinor: p.integer().nullable(),
    attestWindowHours: p.integer().nullable(),
    createdAt: p.datetime(),
  },
});
export type OrganizationRow = InstanceType<typeof Organization.class>;
