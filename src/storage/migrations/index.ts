/** The checked-in migrations, in order. Applied at start-up; never edit one that has shipped. */
import { Migration0001Core } from './0001-core.ts';
import { Migration0002Spine } from './0002-spine.ts';
import { Migration0003Webhooks } from './0003-webhooks.ts';
import { Migration0004Mandates } from './0004-mandates.ts';
import { Migration0005Buyers } from './0005-buyers.ts';
import { Migration0006Acp } from './0006-acp.ts';
import { Migration0007MandatePurchases } from './0007-mandate-purchases.ts';
import { Migration0008Retention } from './0008-retention.ts';
import { Migration0009aA2aTasks } from './0009a-a2a-tasks.ts';
import { Migration0009bRateLimits } from './0009b-rate-limits.ts';
import { Migration0011AfterSale } from './0011-after-sale.ts';
import { Migration0011bOrderMail } from './0011b-order-mail.ts';
import { Migration0011cEventRefunds } from './0011c-event-refunds.ts';
import { Migration0012PoolPages } from './0012-pool-pages.ts';
import { Migration0013aShopSettingsAndCatalogChanges } from './0013a-shop-settings-and-catalog-changes.ts';
import { Migration0013bConsoleTeam } from './0013b-console-team.ts';
import { Migration0013cPaymentProviderSettings } from './0013c-payment-provider-settings.ts';
import { Migration0014Oauth } from './0014-oauth.ts';
import { Migration0019SealedReplays } from './0019-sealed-replays.ts';
import { Migration0016ConsentDrafts } from './0016-consent-drafts.ts';
import { Migration0017AgentAuthorizations } from './0017-agent-authorizations.ts';
import { Migration0018AcpOrderWebhooks } from './0018-acp-order-webhooks.ts';

export const MIGRATIONS = [
  { name: '0001-core', class: Migration0001Core },
  { name: '0002-spine', class: Migration0002Spine },
  { name: '0003-webhooks', class: Migration0003Webhooks },
  { name: '0004-mandates', class: Migration0004Mandates },
  { name: '0005-buyers', class: Migration0005Buyers },
  { name: '0006-acp', class: Migration0006Acp },
  { name: '0007-mandate-purchases', class: Migration0007MandatePurchases },
  { name: '0008-retention', class: Migration0008Retention },
  { name: '0009a-a2a-tasks', class: Migration0009aA2aTasks },
  { name: '0009b-rate-limits', class: Migration0009bRateLimits },
  { name: '0011-after-sale', class: Migration0011AfterSale },
  { name: '0011b-order-mail', class: Migration0011bOrderMail },
  { name: '0011c-event-refunds', class: Migration0011cEventRefunds },
  { name: '0012-pool-pages', class: Migration0012PoolPages },
  { name: '0013a-shop-settings-and-catalog-changes', class: Migration0013aShopSettingsAndCatalogChanges },
  { name: '0013b-console-team', class: Migration0013bConsoleTeam },
  { name: '0013c-payment-provider-settings', class: Migration0013cPaymentProviderSettings },
  { name: '0014-oauth', class: Migration0014Oauth },
  { name: '0016-consent-drafts', class: Migration0016ConsentDrafts },
  { name: '0017-agent-authorizations', class: Migration0017AgentAuthorizations },
  { name: '0018-acp-order-webhooks', class: Migration0018AcpOrderWebhooks },
  { name: '0019-sealed-replays', class: Migration0019SealedReplays },
] as const;
