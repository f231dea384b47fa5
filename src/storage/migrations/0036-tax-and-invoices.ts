/**
 * Tax and invoices (issue #37 item 4): a shop's tax settings (`shops.tax_settings`, null: no tax), each tier's rate
 * (`tiers.tax_rate_id`, null: the shop's default), a quote's tax breakdown (`quote_taxes`, only for shops with tax),
 * invoices and credit notes numbered from one gapless counter per shop, and short-lived download links to an order's
 * receipt (every order) or invoice and credit notes (`invoice_id`).
 *
 * The numbers are allocated by triggers, in the transaction (or the single statement) that inserts the order or marks
 * a refund succeeded, whichever path of the spine does it: `update invoice_counters set next_number = next_number + 1`
 * locks the shop's counter row until that transaction commits, so concurrent completions queue on it, and a rollback
 * (a failed payment, a confirm that did not commit) gives its number back. A shop without an active counter row (no
 * invoicing) costs one index probe inside the insert and no statement.
 */
import { Migration } from '@mikro-orm/migrations';

export class Migration0036TaxAndInvoices extends Migration {
  override async up(): Promise<void> {
    this.addSql(`alter table shops add column if not exists tax_settings jsonb;`);
    this.addSql(`alter table tiers add column if not exists tax_rate_id text;`);
    this.addSql(
      `create table if not exists quote_taxes (
        quote_id text primary key references quotes(id) on delete cascade,
        tax jsonb not null
      );`,
    );
    this.addSql(
      `create table if not exists invoice_counters (
        shop_id text primary key references shops(id) on delete cascade,
        next_number bigint not null default 1 check (next_number >= 1),
        prefix text not null,
        active boolean not null default true
      );`,
    );
    this.addSql(
      `create table if not exists invoices (
        id text primary key,
        shop_id text not null references shops(id) on delete cascade,
        organization_id text not null,
        order_id text not null references orders(id) on delete cascade deferrable initially deferred,
        refund_id text references refunds(id) on delete cascade deferrable initially deferred,
        kind text not null check (kind in ('invoice', 'credit_note')),
        seq bigint not null,
        number text not null,
        seller jsonb,
        tax jsonb,
        created_at timestamptz not null,
        unique (shop_id, seq)
      );`,
    );
    this.addSql(
      `create unique index if not exists invoices_one_per_order on invoices (order_id) where kind = 'invoice';`,
    );
    this.addSql(
      `create unique index if not exists invoices_one_per_refund on invoices (refund_id) where refund_id is not null;`,
    );
    this.addSql(
      `create table if not exists invoice_downloads (
        token_hash text primary key,
        order_id text not null references orders(id) on delete cascade,
        invoice_id text references invoices(id) on delete cascade,
        expires_at timestamptz not null,
        used_at timestamptz,
        created_at timestamptz not null
      );`,
    );
    this.addSql(
      `create or replace function tessera_invoice_order() returns trigger language plpgsql as $$
      declare n bigint; pre text;
      begin
        -- Only a sale invoices: an order inserted already refunded (a late payment whose places were sold) takes none.
        if new.state <> 'completed' then return new; end if;
        update invoice_counters set next_number = next_number + 1 where shop_id = new.shop_id and active
          returning next_number - 1, prefix into n, pre;
        if n is null then return new; end if;
        insert into invoices (id, shop_id, organization_id, order_id, refund_id, kind, seq, number, seller, tax,
                              created_at)
        values ('ivc_' || split_part(new.id, '_', 2), new.shop_id, new.organization_id, new.id, null, 'invoice', n,
                pre || '-' || n, (select s.tax_settings from shops s where s.id = new.shop_id),
                (select t.tax from quotes q join quote_taxes t on t.quote_id = q.id
                  where q.reservation_id = new.reservation_id limit 1),
                new.created_at);
        return new;
      end $$;`,
    );
    this.addSql(`drop trigger if exists orders_invoice on orders;`);
    this.addSql(
      `create trigger orders_invoice after insert on orders for each row execute function tessera_invoice_order();`,
    );
    this.addSql(
      `create or replace function tessera_credit_note() returns trigger language plpgsql as $$
      declare n bigint; pre text; inv invoices%rowtype;
      begin
        if new.state <> 'succeeded' or (tg_op = 'UPDATE' and old.state = 'succeeded') then return new; end if;
        select * into inv from invoices where order_id = new.order_id and kind = 'invoice';
        if inv.id is null or exists (select from invoices where refund_id = new.id) then return new; end if;
        update invoice_counters set next_number = next_number + 1 where shop_id = new.shop_id
          returning next_number - 1, prefix into n, pre;
        if n is null then return new; end if;
        insert into invoices (id, shop_id, organization_id, order_id, refund_id, kind, seq, number, seller, tax,
                              created_at)
        values ('ivc_' || split_part(new.id, '_', 2), new.shop_id, new.organization_id, new.order_id, new.id,
                'credit_note', n, pre || '-' || n, inv.seller, inv.tax, coalesce(new.updated_at, new.created_at));
        return new;
      end $$;`,
    );
    this.addSql(`drop trigger if exists refunds_credit_note on refunds;`);
    this.addSql(
      `create trigger refunds_credit_note after insert or update of state on refunds for each row
         execute function tessera_credit_note();`,
    );
  }
}
