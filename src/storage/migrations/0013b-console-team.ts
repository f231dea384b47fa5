/**
 * The console's own sign-in (magic links for merchant people) and team invitations; tokens are stored only as hashes.
 */
import { Migration } from '@mikro-orm/migrations';

export class Migration0013bConsoleTeam extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
      create table console_sign_in_links (
        id text primary key,
        token_hash text not null unique,
        email text not null,
        expires_at timestamptz not null,
        used_at timestamptz,
        created_at timestamptz not null
      );
      create index console_sign_in_links_email on console_sign_in_links (email, created_at);
      create table team_invitations (
        id text primary key,
        organization_id text not null references organizations(id) on delete cascade deferrable initially deferred,
        email text not null,
        role text not null check (role in ('owner', 'integrator')),
        token_hash text not null unique,
        invited_by text not null references users(id) deferrable initially deferred,
        expires_at timestamptz not null,
        accepted_at timestamptz,
        accepted_by text references users(id) deferrable initially deferred,
        revoked_at timestamptz,
        created_at timestamptz not null
      );
      create index team_invitations_org on team_invitations (organization_id, created_at);
    `);
  }
}
