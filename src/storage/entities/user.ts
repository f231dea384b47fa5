/** Console users (merchant staff and service staff) and their organization memberships. */
import { defineEntity, p } from '@mikro-orm/core';

export const User = defineEntity({
  name: 'User',
  tableName: 'users',
  properties: {
    id: p.string().primary(),
    email: p.string().unique(),
    name: p.string().nullable(),
    isStaff: p.boolean().default(false),
    createdAt: p.datetime(),
  },
});

export const Membership = defineEntity({
  name: 'Membership',
  tableName: 'memberships',
  properties: {
    userId: p.string().primary(),
    organizationId: p.string().primary(),
    role: p.string(),
    invitedBy: p.string().nullable(),
    createdAt: p.datetime(),
  },
  primaryKeys: ['userId', 'organizationId'],
});
